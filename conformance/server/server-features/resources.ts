/** Resources, where the server declares them: list, templates, read, pagination, unknown URIs. */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { featureResultIssues, replyToJudge } from '../helpers/helpers.js';
import {
  capabilityOutcome,
  invalidCursorOutcome,
  type Listing,
  listAll,
  paginationOutcome,
  truncatedNote,
} from '../helpers/listing.js';
import type { CheckContext } from '../run/context.js';
import { errorCode, isErrorResponse, isObject } from '../run/session.js';
import { listChangedCheck } from './list-changed.js';
import { inBothEras } from './tools.js';

const RESOURCES = 'MCP 2025-11-25 server/resources';
const SCHEMA_IS_SPEC =
  'The full specification of the protocol is defined as a TypeScript schema. This is the source of truth for all protocol messages and structures.';
const base = {
  section: 'resources',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: LEGACY_ONLY,
} as const;
/** A resources check whose rule 2026-07-28 keeps: it runs in both eras. */
const both = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;

function resourceListing(ctx: CheckContext): Promise<Listing> {
  ctx.requireCapability('resources');
  return listAll(ctx, 'resources/list', 'resources', 'uri');
}

export const resourcesChecks: Check[] = [
  {
    ...both,
    id: 'resources.list-valid',
    level: 'MUST',
    title: 'resources/list results are valid, pagination followed to the end',
    requirement: `${SCHEMA_IS_SPEC} (2026-07-28 server/resources: Servers that declare the resources capability MUST respond to resources/list requests with the set of resources currently available to the requesting client.)`,
    source: `${RESOURCES}; schema.ts ListResourcesResult; MCP 2026-07-28 server/resources (Capabilities; Listing Resources); schema.ts ListResourcesResult`,
    async run(ctx) {
      const listing = await resourceListing(ctx);
      if (listing.error)
        return fail('resources/list did not complete', 'a ListResourcesResult', listing.error);
      for (const page of listing.pages) {
        const issues = featureResultIssues(ctx, 'resources/list', page);
        if (issues.length > 0)
          return fail('a resources/list page is not valid', 'a valid ListResourcesResult', issues.join('; '));
      }
      const bad = listing.items.find((r) => typeof r.uri !== 'string' || typeof r.name !== 'string');
      if (bad) return fail('a resource lacks uri or name', 'uri and name strings', brief(bad));
      if (listing.truncated) throw new NotApplicable(truncatedNote(listing));
      return pass(`${listing.items.length} resource(s)`);
    },
  },
  {
    ...both,
    id: 'resources.pagination',
    level: 'SHOULD',
    title: 'resources/list pagination ends without repeats or loops',
    requirement: 'Servers SHOULD: Provide stable cursors; Handle invalid cursors gracefully.',
    source: inBothEras('server/utilities/pagination', 'Implementation Guidelines'),
    async run(ctx) {
      return paginationOutcome(await resourceListing(ctx), 'resource URIs', true);
    },
  },
  {
    ...both,
    id: 'resources.templates-valid',
    level: 'MUST',
    title: 'resources/templates/list results are valid',
    requirement: SCHEMA_IS_SPEC,
    source: `${RESOURCES} (Resource Templates); schema.ts ListResourceTemplatesResult; MCP 2026-07-28 server/resources (Resource Templates); schema.ts ListResourceTemplatesResult`,
    async run(ctx) {
      ctx.requireCapability('resources');
      const listing = await listAll(ctx, 'resources/templates/list', 'resourceTemplates', 'uriTemplate');
      // Templates are optional: a server without the method has none to judge.
      const firstPage = listing.pages[0];
      if (listing.items.length === 0 && firstPage && errorCode(firstPage) === -32601)
        throw new NotApplicable('resources/templates/list is not implemented (-32601): no templates');
      if (listing.error)
        return fail(
          'resources/templates/list did not complete',
          'a ListResourceTemplatesResult',
          listing.error,
        );
      for (const page of listing.pages) {
        const issues = featureResultIssues(ctx, 'resources/templates/list', page);
        if (issues.length > 0)
          return fail(
            'a templates page is not valid',
            'a valid ListResourceTemplatesResult',
            issues.join('; '),
          );
      }
      if (listing.truncated) throw new NotApplicable(truncatedNote(listing));
      return pass(`${listing.items.length} template(s)`);
    },
  },
  {
    ...both,
    id: 'resources.read',
    level: 'MUST',
    title: 'the first listed resource can be read and the result is valid',
    requirement: SCHEMA_IS_SPEC,
    source: `${RESOURCES} (Reading Resources); schema.ts ReadResourceResult; MCP 2026-07-28 server/resources (Reading Resources); schema.ts ReadResourceResult`,
    async run(ctx) {
      const listing = await resourceListing(ctx);
      const first = listing.items[0];
      if (!first || typeof first.uri !== 'string') throw new NotApplicable('no resource listed');
      const reply = await ctx.session().request('resources/read', { uri: first.uri });
      const result = reply.message.result;
      // A correct server may fail a read (a backend down, access refused): only a result is judged.
      if (!isObject(result))
        throw new NotApplicable(
          `reading ${first.uri} answered with an error: ${brief(reply.message.error, 200)}`,
        );
      const issues = featureResultIssues(ctx, 'resources/read', result);
      if (issues.length > 0)
        return fail('the ReadResourceResult is not valid', 'a valid ReadResourceResult', issues.join('; '));
      if (!Array.isArray(result.contents)) return fail('no contents array', 'contents: [...]', brief(result));
      return pass();
    },
  },
  {
    ...base,
    id: 'resources.unknown-uri',
    level: 'SHOULD',
    title: 'reading an unknown resource gets error -32002',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: -32002',
    source: `${RESOURCES} (Error Handling)`,
    async run(ctx) {
      ctx.requireCapability('resources');
      const message = await replyToJudge(
        ctx.session(),
        'resources/read',
        { uri: 'furfly-conformance://no/such/resource' },
        'whether an unknown URI gets -32002',
      );
      if (errorCode(message) !== -32002)
        return fail('an unknown URI was not reported as -32002', 'error code -32002', brief(message));
      return pass();
    },
  },
  {
    ...both,
    id: 'resources.capability-declared',
    level: 'MUST',
    title: 'a server that offers resources declares the resources capability',
    requirement: 'Servers that support resources MUST declare the resources capability.',
    source: inBothEras('server/resources', 'Capabilities'),
    async run(ctx) {
      return capabilityOutcome(ctx, 'resources', 'resources/list', 'resources');
    },
  },
  {
    ...base,
    id: 'resources.subscribe',
    level: 'MUST',
    title:
      'with resources.subscribe declared, subscribing to and unsubscribing from a listed resource succeed',
    requirement:
      'Servers that support resources MUST declare the resources capability. (subscribe: whether the client can subscribe to be notified of changes to individual resources.)',
    source: `${RESOURCES} (Capabilities, Subscriptions); schema.ts SubscribeRequest, UnsubscribeRequest`,
    async run(ctx) {
      const capability = ctx.requireCapability('resources');
      // Without the declaration a refusal (-32601 or another error) is right: there is nothing to judge.
      if (capability.subscribe !== true)
        throw new NotApplicable(
          'the server does not declare resources.subscribe (so any refusal is correct)',
        );
      const listing = await resourceListing(ctx);
      const first = listing.items[0];
      if (!first || typeof first.uri !== 'string')
        throw new NotApplicable('no resource listed to subscribe to');
      for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const) {
        const reply = await ctx.session().request(method, { uri: first.uri });
        if (isErrorResponse(reply.message))
          return fail(
            `${method} of the listed ${first.uri} was refused although subscribe is declared`,
            'an empty result',
            brief(reply.message),
          );
        const issues = featureResultIssues(ctx, method, reply.message.result);
        if (issues.length > 0)
          return fail(`the ${method} result is not valid`, 'an empty result', issues.join('; '));
      }
      return pass(first.uri);
    },
  },
  listChangedCheck('resources'),
  {
    ...both,
    id: 'resources.invalid-cursor',
    level: 'SHOULD',
    title: 'an invalid cursor for resources/list gets error -32602',
    requirement: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    source: inBothEras('server/utilities/pagination', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('resources');
      return invalidCursorOutcome(ctx, 'resources/list');
    },
  },
  {
    ...both,
    id: 'resources.templates-invalid-cursor',
    level: 'SHOULD',
    title: 'an invalid cursor for resources/templates/list gets error -32602',
    requirement: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    source: inBothEras('server/utilities/pagination', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('resources');
      return invalidCursorOutcome(ctx, 'resources/templates/list');
    },
  },
];
