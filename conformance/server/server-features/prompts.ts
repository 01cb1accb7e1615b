/** Prompts, where the server declares them: list, get, pagination, unknown names. */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  EVERY_VERSION,
  fail,
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
import { errorCode, isObject } from '../run/session.js';
import { listChangedCheck } from './list-changed.js';
import { inBothEras } from './tools.js';

const PROMPTS = 'MCP 2025-11-25 server/prompts';
const SCHEMA_IS_SPEC =
  'The full specification of the protocol is defined as a TypeScript schema. This is the source of truth for all protocol messages and structures.';
const base = { section: 'prompts', versions: ALL_VERSIONS, transports: BOTH_TRANSPORTS } as const;
/** A prompts check whose rule 2026-07-28 keeps: it runs in both eras. */
const both = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;

function promptListing(ctx: CheckContext): Promise<Listing> {
  ctx.requireCapability('prompts');
  return listAll(ctx, 'prompts/list', 'prompts', 'name');
}

export const promptsChecks: Check[] = [
  {
    ...both,
    id: 'prompts.list-valid',
    level: 'MUST',
    title: 'prompts/list results are valid, pagination followed to the end',
    requirement: `${SCHEMA_IS_SPEC} (2026-07-28 server/prompts: Servers that declare the prompts capability MUST respond to prompts/list requests with the set of prompts currently available to the requesting client.)`,
    source: `${PROMPTS} (Listing Prompts); schema.ts ListPromptsResult; MCP 2026-07-28 server/prompts (Capabilities; Listing Prompts); schema.ts ListPromptsResult`,
    async run(ctx) {
      const listing = await promptListing(ctx);
      if (listing.error) return fail('prompts/list did not complete', 'a ListPromptsResult', listing.error);
      for (const page of listing.pages) {
        const issues = featureResultIssues(ctx, 'prompts/list', page);
        if (issues.length > 0)
          return fail('a prompts/list page is not valid', 'a valid ListPromptsResult', issues.join('; '));
      }
      const bad = listing.items.find((p) => typeof p.name !== 'string');
      if (bad) return fail('a prompt lacks a name', 'a name string', brief(bad));
      if (listing.truncated) throw new NotApplicable(truncatedNote(listing));
      return pass(`${listing.items.length} prompt(s)`);
    },
  },
  {
    ...both,
    id: 'prompts.pagination',
    level: 'SHOULD',
    title: 'prompts/list pagination ends without repeats or loops',
    requirement: 'Servers SHOULD: Provide stable cursors; Handle invalid cursors gracefully.',
    source: inBothEras('server/utilities/pagination', 'Implementation Guidelines'),
    async run(ctx) {
      return paginationOutcome(await promptListing(ctx), 'prompt names', true);
    },
  },
  {
    ...both,
    id: 'prompts.get',
    level: 'MUST',
    title: 'the first listed prompt can be fetched and the result is valid',
    requirement: SCHEMA_IS_SPEC,
    source: `${PROMPTS} (Getting a Prompt); schema.ts GetPromptResult; MCP 2026-07-28 server/prompts (Getting a Prompt); schema.ts GetPromptResult`,
    async run(ctx) {
      const listing = await promptListing(ctx);
      const first = listing.items[0];
      if (!first || typeof first.name !== 'string') throw new NotApplicable('no prompt listed');
      // Required arguments get a harmless placeholder; prompts are templates, not actions.
      const args: Record<string, string> = {};
      for (const argument of Array.isArray(first.arguments) ? first.arguments : []) {
        if (isObject(argument) && typeof argument.name === 'string' && argument.required === true)
          args[argument.name] = 'furfly';
      }
      const reply = await ctx.session().request('prompts/get', { name: first.name, arguments: args });
      const result = reply.message.result;
      // Placeholder arguments may be refused by a correct server: only a result is judged.
      if (!isObject(result))
        throw new NotApplicable(
          `getting ${first.name} answered with an error: ${brief(reply.message.error, 200)}`,
        );
      const issues = featureResultIssues(ctx, 'prompts/get', result);
      if (issues.length > 0)
        return fail('the GetPromptResult is not valid', 'a valid GetPromptResult', issues.join('; '));
      if (!Array.isArray(result.messages)) return fail('no messages array', 'messages: [...]', brief(result));
      return pass();
    },
  },
  {
    ...both,
    id: 'prompts.unknown-name',
    level: 'SHOULD',
    title: 'an unknown prompt name gets error -32602',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params)',
    source: inBothEras('server/prompts', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('prompts');
      const message = await replyToJudge(
        ctx.session(),
        'prompts/get',
        { name: 'furfly_conformance_no_such_prompt' },
        'whether an unknown prompt name gets -32602',
      );
      if (errorCode(message) !== -32602)
        return fail('an unknown prompt was not reported as -32602', 'error code -32602', brief(message));
      return pass();
    },
  },
  {
    ...both,
    id: 'prompts.capability-declared',
    level: 'MUST',
    title: 'a server that offers prompts declares the prompts capability',
    requirement:
      'Servers that support prompts MUST declare the prompts capability during initialization. (2026-07-28: "in their DiscoverResult".)',
    source: inBothEras('server/prompts', 'Capabilities'),
    async run(ctx) {
      return capabilityOutcome(ctx, 'prompts', 'prompts/list', 'prompts');
    },
  },
  listChangedCheck('prompts'),
  {
    ...both,
    id: 'prompts.missing-argument',
    level: 'SHOULD',
    title: 'prompts/get without a required argument gets error -32602',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Missing required arguments: -32602 (Invalid params)',
    source: inBothEras('server/prompts', 'Error Handling'),
    async run(ctx) {
      const listing = await promptListing(ctx);
      const prompt = listing.items.find(
        (p) =>
          typeof p.name === 'string' &&
          Array.isArray(p.arguments) &&
          p.arguments.some((a) => isObject(a) && a.required === true),
      );
      if (!prompt) throw new NotApplicable('no listed prompt has a required argument');
      const message = await replyToJudge(
        ctx.session(),
        'prompts/get',
        { name: prompt.name as string, arguments: {} },
        'whether a missing required argument gets -32602',
      );
      if (errorCode(message) !== -32602)
        return fail(
          `prompts/get ${JSON.stringify(prompt.name)} without its required argument was not refused with -32602`,
          'error code -32602',
          brief(message),
        );
      return pass(String(prompt.name));
    },
  },
  {
    ...both,
    id: 'prompts.invalid-cursor',
    level: 'SHOULD',
    title: 'an invalid cursor for prompts/list gets error -32602',
    requirement: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    source: inBothEras('server/utilities/pagination', 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('prompts');
      return invalidCursorOutcome(ctx, 'prompts/list');
    },
  },
];
