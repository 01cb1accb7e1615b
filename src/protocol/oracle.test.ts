/**
 * Every fixture message is judged twice: by our generated validators (fixtures.test.ts) and by the
 * reference SDK's published schemas (the oracle). A disagreement fails here with the fixture and the path,
 * unless it is one of the differences below, each with its reason; a listed difference that no longer
 * happens fails too, so the list stays true.
 */
import { describe, expect, it } from 'vitest';
import { loadFixtureCases } from './fixture-cases.test-helpers.js';
import { oracleVerdict } from './oracle.test-helpers.js';

/** Why the SDK v1 and our schemas disagree on a fixture, keyed by `<file> <case name>`. */
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
  // Where the SDK is stricter or looser than the specification's schema.ts, which we follow.
  'shared/valid/empty-result.json with-extension-field':
    "the SDK's EmptyResult is a strict object; the spec's EmptyResult is a Result, which is open",
  'shared/invalid/tools-call-result.json missing-content':
    'the SDK defaults a missing content to [] (for results older servers sent); schema.ts requires it',
};

const cases = loadFixtureCases();

describe('fixtures judged by the reference SDK', () => {
  const seen = new Set<string>();
  it.each(cases.map((c) => [`${c.version} ${c.file} ${c.name}`, c] as const))('%s', (_, c) => {
    const verdict = oracleVerdict(c.definition, c.value);
    const sdkAccepts = verdict === '';
    const key = `${c.file} ${c.name}`;
    if (sdkAccepts === c.valid) return;
    seen.add(key);
    const what = c.valid ? `the SDK rejects it (${verdict})` : `the SDK accepts it (ours: ${c.pointer})`;
    expect(KNOWN[key], `${c.version} ${key}: ${what}, and this difference is not explained`).toBeDefined();
  });

  it('lists only differences that still happen', () => {
    for (const key of Object.keys(KNOWN)) expect(seen.has(key), `${key} no longer differs`).toBe(true);
  });
});
