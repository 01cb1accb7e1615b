/**
 * One wording for a command group's missing or unknown action, so every group answers alike:
 * `missing action: use furfly mcp list | tools | …` or `unknown action "lst" (did you mean "list"?): use …`.
 * The caller prefixes `furfly <group>: ` and exits 2 (a usage error, docs/cli.md).
 */
import { nearest } from '../config/suggest.js';
import { terminalLine } from '../terminal/sanitize.js';

export function actionUsage(group: string, action: unknown, actions: readonly string[], hint = ''): string {
  const use = `use furfly ${group} ${actions.join(' | ')}${hint}`;
  if (action === undefined || action === '') return `missing action: ${use}`;
  const word = String(action);
  const guess = nearest(word, actions);
  const mean = guess === undefined ? '' : ` (did you mean "${guess}"?)`;
  return `unknown action "${terminalLine(word)}"${mean}: ${use}`;
}
