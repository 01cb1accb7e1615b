/**
 * The permission check and the bash tool must see the same command string: the registry prepares the call
 * once from the raw arguments the model sent, the check reads the command through `commandOf` on the
 * prepared arguments, and the tool runs `bash -c` with those same arguments. Bash itself reports what it ran in BASH_EXECUTION_STRING, so each case prints
 * that and compares it with what the check saw.
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry.js';
import { SessionState } from '../session-state.js';
import { builtinTools } from './index.js';

/** Prints the string bash runs, then an end mark (the tool adds its own lines after the output). */
const PRINT = 'printf %s[END] "$BASH_EXECUTION_STRING"';

/** Raw arguments as a model may send them: objects or JSON text with escapes, odd characters, keys twice. */
const RAW: readonly (string | object)[] = [
  { command: `${PRINT} # plain` },
  JSON.stringify({ command: `${PRINT} # \u00e9\u2028\u202e tab\there` }),
  `{"command": "${PRINT.replace(/"/g, '\\"')} # \\u0072m -rf"}`,
  `{"command": "echo first", "command": "${PRINT.replace(/"/g, '\\"')} # the last key wins"}`,
  { command: `${PRINT} \\\n # continued`, description: 'x' },
  JSON.stringify({ command: `${PRINT} # crlf\r\n` }),
];

describe('bash runs exactly the command the permission check saw', () => {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());

  it.each(RAW.map((raw) => [typeof raw === 'string' ? raw : JSON.stringify(raw), raw]))(
    '%s',
    async (_title, raw) => {
      const prepared = registry.prepare('bash', raw);
      if (!prepared.ok) throw new Error(JSON.stringify(prepared.result));
      const checked = registry.commandOf('bash', prepared.call.args);
      expect(checked).toBeDefined();
      const result = await registry.run(prepared.call, {
        projectRoot: process.cwd(),
        session: new SessionState(),
        signal: new AbortController().signal,
      });
      expect(result.isError).toBe(false);
      const text = result.content.map((c) => ('text' in c ? c.text : '')).join('');
      const ran = text.slice(0, text.lastIndexOf('[END]'));
      expect(ran).toBe(checked);
    },
  );
});
