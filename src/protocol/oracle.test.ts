/**
 * Every fixture message is judged twice: by our generated validators (fixtures.test.ts) and by the
 * reference SDK's published schemas (the oracle). A disagreement fails here with the fixture and the path,
 * unless it is one of the differences below, each with its reason; a listed difference that no longer
 * happens fails too, so the list stays true.
 */
import { describe, expect, it } from 'vitest';
import { loadFixtureCases } from './fixture-cases.test-helpers.js';
import { oracleVerdict } from './oracle.test-helpers.js';

/** Why the SDK v1 and our schemas disagree on a fixture (2025 versions), keyed by `<file> <case name>`. */
const KNOWN: Readonly<Record<string, string>> = {
  // The SDK publishes 2025-11-25 only and applies it to every version; these are real version differences.
  '2025-03-26/valid/batch.json batch-of-requests': 'batches exist in 2025-03-26 only; the SDK has none',
  '2025-03-26/valid/batch.json batch-of-request-and-notification': 'batches: 2025-03-26 only',
  '2025-03-26/valid/batch.json batch-of-responses': 'batches: 2025-03-26 only',
  '2025-03-26/valid/before-2025-06-18.json structured-content-is-just-an-unknown-member':
    'structuredContent is defined (as an object) from 2025-06-18; before, any value is an extension',
  '2025-03-26/valid/before-2025-06-18.json annotations-last-modified-is-unknown':
    'Annotations.lastModified is defined from 2025-06-18; before, any value is an extension',
  '2025-03-26/invalid/before-2025-06-18.json resource-link-block-does-not-exist-yet':
    'resource_link content appeared in 2025-06-18',
  '2025-03-26/invalid/before-2025-06-18.json prompt-message-resource-link':
    'resource_link content appeared in 2025-06-18',
  '2025-03-26/invalid/before-2025-06-18.json error-response-without-id':
    'an error response may omit its id only from 2025-11-25',
  '2025-03-26/invalid/before-2025-06-18.json cancelled-without-request-id':
    'notifications/cancelled may omit requestId only from 2025-11-25',
  '2025-06-18/valid/before-2025-11-25.json icons-are-just-an-unknown-member':
    'icons are defined from 2025-11-25; before, any value is an extension',
  '2025-06-18/valid/before-2025-11-25.json execution-is-unknown':
    'Tool.execution is defined from 2025-11-25; before, any value is an extension',
  '2025-06-18/valid/before-2025-11-25.json implementation-website-url-unchecked':
    'Implementation.websiteUrl is defined from 2025-11-25; before, any value is an extension',
  '2025-06-18/invalid/before-2025-11-25.json error-response-without-id':
    'an error response may omit its id only from 2025-11-25',
  '2025-06-18/invalid/before-2025-11-25.json cancelled-without-request-id':
    'notifications/cancelled may omit requestId only from 2025-11-25',
  '2024-11-05/invalid/http-sse-era.json audio-content-came-in-2025-03-26':
    'audio content appeared in 2025-03-26',
  '2024-11-05/invalid/http-sse-era.json prompt-message-audio': 'audio content appeared in 2025-03-26',
  '2024-11-05/invalid/http-sse-era.json resource-link-block-does-not-exist-yet':
    'resource_link content appeared in 2025-06-18',
  '2024-11-05/invalid/http-sse-era.json error-response-without-id':
    'an error response may omit its id only from 2025-11-25',
  // Where the SDK is stricter or looser than the specification's schema.ts, which we follow.
  'shared/valid/empty-result.json with-extension-field':
    "the SDK's EmptyResult is a strict object; the spec's EmptyResult is a Result, which is open",
  'shared/invalid/tools-call-result.json missing-content':
    'the SDK defaults a missing content to [] (for results older servers sent); schema.ts requires it',
};

/**
 * Why the SDK v2 (`@modelcontextprotocol/core`) and our 2026-07-28 schemas disagree, grouped by reason.
 * Mostly the SDK is looser than the specification's schema.ts (it fills in or does not declare members
 * the specification requires), which we follow; the keys are `<file> <case name>` under 2026-07-28/.
 */
const KNOWN_V2_BY_REASON: Readonly<Record<string, readonly string[]>> = {
  'the SDK\'s result schemas do not declare resultType (its protocol layer reads it before parsing); schema.ts requires it on every result, and a list or call result is "complete"':
    [
      'invalid/completion-result.json without-result-type',
      'invalid/discover-result.json without-result-type',
      'invalid/empty-result.json without-result-type',
      'invalid/envelope.json result-type-not-a-string',
      'invalid/envelope.json result-without-result-type',
      'invalid/prompts-get-result.json without-result-type',
      'invalid/resources-read-result.json without-result-type',
      'invalid/subscriptions-listen-result.json without-result-type',
      'invalid/tools-call-result.json result-type-not-a-string',
      'invalid/tools-call-result.json without-result-type',
      'invalid/tools-list-result.json result-type-input-required',
    ],
  'the SDK\'s list, read and discover results do not declare ttlMs and cacheScope; schema.ts\'s CacheableResult requires both, ttlMs >= 0 and cacheScope "public" or "private"':
    [
      'invalid/discover-result.json unknown-cache-scope',
      'invalid/discover-result.json without-ttl',
      'invalid/prompts-list-result.json cache-scope-uppercase',
      'invalid/prompts-list-result.json without-ttl',
      'invalid/resources-list-result.json templates-without-ttl',
      'invalid/resources-list-result.json without-cache-scope',
      'invalid/resources-read-result.json without-ttl',
      'invalid/tools-list-result.json negative-ttl',
      'invalid/tools-list-result.json ttl-not-a-number',
      'invalid/tools-list-result.json without-cache-scope',
      'invalid/tools-list-result.json without-ttl',
    ],
  "the SDK's request schemas keep params and _meta optional and untyped (its client fills them in); schema.ts's RequestParams requires _meta with protocolVersion and clientCapabilities, and types clientInfo and logLevel":
    [
      'invalid/completion.json without-meta',
      'invalid/discover.json client-info-without-version',
      'invalid/discover.json meta-without-client-capabilities',
      'invalid/discover.json meta-without-protocol-version',
      'invalid/discover.json params-without-meta',
      'invalid/discover.json protocol-version-not-a-string',
      'invalid/discover.json unknown-log-level',
      'invalid/discover.json without-params',
      'invalid/prompts-get.json without-meta',
      'invalid/prompts-list.json client-capabilities-not-an-object',
      'invalid/prompts-list.json without-params',
      'invalid/resources-list.json template-list-without-meta',
      'invalid/resources-list.json without-params',
      'invalid/resources-read.json without-meta',
      'invalid/subscriptions-listen.json without-meta',
      'invalid/tools-call.json without-meta',
      'invalid/tools-list.json params-without-meta',
      'invalid/tools-list.json without-params',
    ],
  "the SDK leaves a result's _meta untyped; schema.ts types io.modelcontextprotocol/serverInfo as an Implementation":
    [
      'invalid/discover-result.json server-info-without-name',
      'invalid/envelope.json server-info-not-an-object',
    ],
  "the SDK leaves a notification's _meta untyped; schema.ts types io.modelcontextprotocol/subscriptionId as a RequestId":
    [
      'invalid/stream-notifications.json resource-list-changed-subscription-id-boolean',
      'invalid/stream-notifications.json subscription-id-null',
      'invalid/subscriptions-acknowledged.json subscription-id-an-object',
    ],
  "the SDK's request params do not declare the retry's inputResponses and requestState (schema.ts's InputResponseRequestParams)":
    [
      'invalid/prompts-get.json input-responses-not-an-object',
      'invalid/resources-read.json input-response-unrecognised',
      'invalid/tools-call.json input-response-with-unknown-action',
      'invalid/tools-call.json request-state-not-a-string',
    ],
  'the SDK publishes no InputRequiredResult; judged as its Result with typed inputRequests, it cannot check resultType, requestState or "at least one of the two"':
    [
      'invalid/input-required.json neither-requests-nor-state',
      'invalid/input-required.json request-state-not-a-string',
      'invalid/input-required.json result-type-complete',
    ],
  'the SDK publishes no schema for the -32020/-32021/-32022 error responses; judged as a generic error response, it cannot check the code or data':
    [
      'invalid/errors.json draft-era-code',
      'invalid/errors.json header-mismatch-wrong-code',
      'invalid/errors.json missing-capability-without-data',
      'invalid/errors.json supported-not-a-list',
      'invalid/errors.json without-supported',
    ],
  'the SDK keeps requestId optional as in 2025-11-25 (task cancellation); schema.ts 2026-07-28 requires it again':
    ['invalid/stream-notifications.json cancelled-without-request-id'],
  'the SDK defaults a missing content to [] (for results older servers sent); schema.ts requires it': [
    'invalid/tools-call-result.json without-content',
  ],
  "the SDK still requires URL elicitation's elicitationId, which 2026-07-28 removed (changelog, minor change 11)":
    ['valid/elicitation.json url-mode', 'valid/input-required.json url-elicitation'],
  "the SDK's EmptyResult is a strict object; the spec's EmptyResult is a Result, which is open and carries resultType":
    [
      'valid/empty-result.json complete',
      'valid/empty-result.json extension-result-type',
      'valid/empty-result.json with-server-info',
    ],
};

const KNOWN_ALL: Readonly<Record<string, string>> = {
  ...KNOWN,
  ...Object.fromEntries(
    Object.entries(KNOWN_V2_BY_REASON).flatMap(([reason, keys]) =>
      keys.map((key) => [`2026-07-28/${key}`, `SDK v2: ${reason}`]),
    ),
  ),
};

const cases = loadFixtureCases();

describe('fixtures judged by the reference SDK', () => {
  const seen = new Set<string>();
  it.each(cases.map((c) => [`${c.version} ${c.file} ${c.name}`, c] as const))('%s', (_, c) => {
    const verdict = oracleVerdict(c.definition, c.value, c.version);
    const sdkAccepts = verdict === '';
    const key = `${c.file} ${c.name}`;
    if (sdkAccepts === c.valid) return;
    seen.add(key);
    const what = c.valid ? `the SDK rejects it (${verdict})` : `the SDK accepts it (ours: ${c.pointer})`;
    expect(
      KNOWN_ALL[key],
      `${c.version} ${key}: ${what}, and this difference is not explained`,
    ).toBeDefined();
  });

  it('lists only differences that still happen', () => {
    for (const key of Object.keys(KNOWN_ALL)) expect(seen.has(key), `${key} no longer differs`).toBe(true);
  });
});
