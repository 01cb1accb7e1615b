/**
 * Task ids must be unguessable when the server cannot bind tasks to an authorization context (MCP
 * 2025-11-25 basic/utilities/tasks, Task Isolation and Access Control). A run without credentials (stdio,
 * or HTTP without an Authorization header) gives the server no context to bind to, so there the ids it
 * hands out must carry enough entropy.
 *
 * Entropy cannot be measured from a handful of samples, so only the plain case fails: every task id of
 * the run, once the part all of them share is cut off at both ends, is a decimal number, and the numbers
 * lie close together (within 1000 per id), as counters and millisecond clocks do. Random ids of any
 * alphabet pass; two ids at least are needed to judge.
 */
import { BOTH_TRANSPORTS, type Check, fail, LEGACY_ONLY, NotApplicable, pass } from '../check.js';
import { isObject } from '../run/session.js';

function commonPrefix(values: readonly string[]): number {
  const first = values[0] ?? '';
  let n = 0;
  while (n < first.length && values.every((v) => v[n] === first[n])) n += 1;
  return n;
}

/** Why these task ids look guessable, or null when nothing shows it. */
export function guessableIdsIssue(ids: readonly string[]): string | null {
  const distinct = [...new Set(ids)];
  if (distinct.length < 2) return null;
  const prefix = commonPrefix(distinct);
  const reversed = distinct.map((id) => [...id.slice(prefix)].reverse().join(''));
  const suffix = commonPrefix(reversed);
  const cores = distinct.map((id) => id.slice(prefix, id.length - suffix));
  if (!cores.every((core) => /^\d{1,15}$/.test(core))) return null;
  const numbers = cores.map(Number);
  const spread = Math.max(...numbers) - Math.min(...numbers);
  if (spread > 1000 * distinct.length) return null;
  return `${distinct.length} task ids differ only in a number within ${spread} of each other (a counter or a clock)`;
}

export const taskIdEntropyChecks: readonly Check[] = [
  {
    id: 'tasks.id-entropy',
    section: 'tasks',
    level: 'MUST',
    versions: ['2025-11-25'],
    eras: LEGACY_ONLY,
    transports: BOTH_TRANSPORTS,
    judgesWholeRun: true,
    title: 'task ids are not guessable (counters or clocks) when no authorization context binds them',
    requirement:
      'If context-binding is unavailable, receivers MUST generate cryptographically secure task IDs with enough entropy to prevent guessing',
    source: 'MCP 2025-11-25 basic/utilities/tasks (Task Isolation and Access Control)',
    async run(ctx) {
      const target = ctx.settings.target;
      if (
        target.transport === 'http' &&
        Object.keys(target.headers).some((h) => h.toLowerCase() === 'authorization')
      )
        throw new NotApplicable(
          'the run has credentials: the server may bind tasks to that authorization context',
        );
      ctx.session();
      const ids: string[] = [];
      for (const session of ctx.sessions)
        for (const entry of session.log) {
          const message = entry.message;
          if (entry.direction !== 'in' || !isObject(message) || !isObject(message.result)) continue;
          const task = message.result.task;
          if (isObject(task) && typeof task.taskId === 'string') ids.push(task.taskId);
        }
      if (new Set(ids).size < 2)
        throw new NotApplicable(
          ctx.settings.callTools
            ? 'nothing to judge: the run saw fewer than two tasks created'
            : // Tasks are created by calling tools: say so, as every check that needs calls does.
              'tools are called only with --call-tools: no task was created to judge its id',
        );
      const issue = guessableIdsIssue(ids);
      if (issue)
        return fail(issue, 'task ids with enough entropy to prevent guessing', ids.slice(0, 3).join(', '));
      return pass(`${new Set(ids).size} task ids checked`);
    },
  },
];
