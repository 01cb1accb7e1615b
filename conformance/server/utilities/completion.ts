/**
 * Completion (server/utilities/completion): the capability declared when completions are served, a
 * valid result when declared, and the error codes when not declared or for a prompt that does not exist.
 *
 * What to complete comes from the server itself: the first prompt argument it lists (or, without one,
 * the first variable of a resource template). A server that offers neither has nothing to complete.
 *
 * "Implementations MUST: Validate all completion inputs" is judged by its one plain consequence: malformed
 * input (an argument value that is not a string, a ref of no known type, no argument at all) is answered,
 * with an error or a result, and leaves the server answering. Whether a result to malformed input means
 * the server did not validate is not certain (it may have coerced the value), so only silence fails.
 */
import { errorText } from '../../../src/util/error-text.js';
import {
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  CouldNotTell,
  EVERY_VERSION,
  fail,
  NotApplicable,
  pass,
} from '../check.js';
import { featureResultIssues } from '../helpers/helpers.js';
import { listAll } from '../helpers/listing.js';
import type { CheckContext } from '../run/context.js';
import { errorCode, isErrorResponse, isObject, type JsonObject } from '../run/session.js';
import { inBothEras } from '../server-features/tools.js';

const COMPLETION = 'server/utilities/completion';
/** Every completion rule reads the same in 2026-07-28: each check runs in both eras. */
const base = {
  section: 'completion',
  versions: EVERY_VERSION,
  eras: BOTH_ERAS,
  transports: BOTH_TRANSPORTS,
} as const;
const UNKNOWN_PROMPT = 'furfly_conformance_no_such_prompt';

interface Target {
  ref: JsonObject;
  argument: string;
}

/** Something the server offers to complete, or null. Listing failures are other checks' to report. */
function completionTarget(ctx: CheckContext): Promise<Target | null> {
  return ctx.memo('completion.target', async () => {
    if (isObject(ctx.capabilities.prompts)) {
      const prompts = await listAll(ctx, 'prompts/list', 'prompts', 'name');
      for (const prompt of prompts.items) {
        const argument = (Array.isArray(prompt.arguments) ? prompt.arguments : []).find(
          (a): a is JsonObject => isObject(a) && typeof a.name === 'string',
        );
        if (argument && typeof prompt.name === 'string')
          return { ref: { type: 'ref/prompt', name: prompt.name }, argument: argument.name as string };
      }
    }
    if (isObject(ctx.capabilities.resources)) {
      const templates = await listAll(ctx, 'resources/templates/list', 'resourceTemplates', 'uriTemplate');
      for (const template of templates.items) {
        const uri = template.uriTemplate;
        const variable = typeof uri === 'string' ? /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(uri)?.[1] : undefined;
        if (variable) return { ref: { type: 'ref/resource', uri }, argument: variable };
      }
    }
    return null;
  });
}

async function complete(ctx: CheckContext, ref: JsonObject, argument: string): Promise<JsonObject> {
  try {
    return (
      await ctx
        .session()
        .requestUntyped('completion/complete', { ref, argument: { name: argument, value: '' } })
    ).message;
  } catch (error) {
    throw new CouldNotTell(`completion/complete got no response (${errorText(error)})`);
  }
}

/** Malformed completion/complete params, built on a real target so only the malformed part differs. */
function malformedInputs(target: Target): { what: string; params: JsonObject }[] {
  return [
    {
      what: 'an argument value that is a number',
      params: { ref: target.ref, argument: { name: target.argument, value: 42 } },
    },
    {
      what: 'a ref of no known type',
      params: { ref: { type: 'ref/furfly-unknown' }, argument: { name: target.argument, value: '' } },
    },
    { what: 'no argument', params: { ref: target.ref } },
  ];
}

export const completionChecks: Check[] = [
  {
    ...base,
    id: 'completion.capability-declared',
    level: 'MUST',
    title: 'a server that answers completion/complete declares the completions capability',
    requirement: 'Servers that support completions MUST declare the completions capability.',
    source: inBothEras(COMPLETION, 'Capabilities'),
    async run(ctx) {
      ctx.session();
      if (isObject(ctx.capabilities.completions)) return pass('declared');
      const target = (await completionTarget(ctx)) ?? {
        ref: { type: 'ref/prompt', name: UNKNOWN_PROMPT },
        argument: 'furfly',
      };
      const reply = await ctx.session().requestUntyped('completion/complete', {
        ref: target.ref,
        argument: { name: target.argument, value: '' },
      });
      const result = reply.message.result;
      if (isObject(result) && isObject(result.completion))
        return fail(
          'completion/complete returned suggestions, but the completions capability was not declared',
          'capabilities.completions, or an error',
          brief(reply.message),
        );
      return pass(`not declared and not served (code ${String(errorCode(reply.message))})`);
    },
  },
  {
    ...base,
    id: 'completion.undeclared-error',
    level: 'SHOULD',
    title: 'without the capability, completion/complete gets error -32601',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Method not found: -32601 (Capability not supported).',
    source: inBothEras(COMPLETION, 'Error Handling'),
    async run(ctx) {
      ctx.session();
      if (isObject(ctx.capabilities.completions))
        throw new NotApplicable('the server declares completions (see completion.complete)');
      const reply = await complete(ctx, { type: 'ref/prompt', name: UNKNOWN_PROMPT }, 'furfly');
      if (errorCode(reply) !== -32601)
        return fail(
          'completion/complete without the capability did not get -32601',
          'error code -32601',
          brief(reply),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'completion.complete',
    level: 'MUST',
    title: 'with the capability, completion/complete returns a valid result (at most 100 values)',
    requirement:
      'Servers that support completions MUST declare the completions capability. (schema.ts CompleteResult: values — an array of completion values. Must not exceed 100 items.)',
    source: `${inBothEras(COMPLETION, 'Capabilities, Completion Results')}; schema.ts CompleteResult`,
    async run(ctx) {
      ctx.requireCapability('completions');
      const target = await completionTarget(ctx);
      if (!target)
        throw new NotApplicable('the server lists no prompt argument or template variable to complete');
      const reply = await ctx.session().requestUntyped('completion/complete', {
        ref: target.ref,
        argument: { name: target.argument, value: '' },
      });
      const message = reply.message;
      const what = `${brief(target.ref, 120)} argument ${JSON.stringify(target.argument)}`;
      if (errorCode(message) === -32601)
        return fail(
          'completion/complete is declared but answered "Method not found"',
          'a CompleteResult',
          brief(message),
        );
      // Another error may be the server's judgement of this argument (nothing to offer): not judged.
      if (isErrorResponse(message))
        throw new NotApplicable(`completing ${what} answered with an error: ${brief(message.error, 200)}`);
      const issues = featureResultIssues(ctx, 'completion/complete', message.result);
      if (issues.length > 0)
        return fail(
          `the CompleteResult for ${what} is not valid`,
          'a valid CompleteResult',
          issues.join('; '),
        );
      const values =
        isObject(message.result) && isObject(message.result.completion)
          ? message.result.completion.values
          : undefined;
      if (!Array.isArray(values) || values.length > 100)
        return fail(
          `the completion values for ${what} are not an array of at most 100`,
          'values: at most 100 strings',
          brief(values),
        );
      return pass(`${values.length} value(s) for ${what}`);
    },
  },
  {
    ...base,
    id: 'completion.unknown-prompt',
    level: 'SHOULD',
    title: 'completing an argument of a prompt that does not exist gets error -32602',
    requirement:
      'Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params).',
    source: inBothEras(COMPLETION, 'Error Handling'),
    async run(ctx) {
      ctx.requireCapability('completions');
      const reply = await complete(ctx, { type: 'ref/prompt', name: UNKNOWN_PROMPT }, 'furfly');
      if (errorCode(reply) !== -32602)
        return fail(
          'completion for an unknown prompt was not refused with -32602',
          'error code -32602',
          brief(reply),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'completion.malformed-input',
    level: 'MUST',
    title: 'malformed completion/complete input is answered and leaves the server answering',
    requirement: 'Implementations MUST: Validate all completion inputs',
    source: inBothEras(COMPLETION, 'Security'),
    async run(ctx) {
      ctx.requireCapability('completions');
      const target = await completionTarget(ctx);
      if (!target)
        throw new NotApplicable('the server lists no prompt argument or template variable to complete');
      // A fresh connection: a server that falls over must not take the shared session with it.
      const { session } = await ctx.openInitialized();
      const answers: string[] = [];
      for (const input of malformedInputs(target)) {
        try {
          const reply = await session.requestUntyped('completion/complete', input.params);
          answers.push(
            isErrorResponse(reply.message) ? `error ${String(errorCode(reply.message))}` : 'a result',
          );
        } catch (error) {
          // A slow answer is not a broken server: only one that stopped answering fails.
          const alive = await session.ping().then(
            () => true,
            () => false,
          );
          if (alive) throw new CouldNotTell(`completion/complete with ${input.what} got no answer in time`);
          return fail(
            `completion/complete with ${input.what} got no answer and the server stopped answering`,
            'an error (or a result), and the server still answering',
            `${errorText(error)}; params ${brief(input.params, 200)}`,
          );
        }
      }
      return pass(`answered: ${answers.join(', ')}`);
    },
  },
];
