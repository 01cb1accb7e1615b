/**
 * `furfly mcp resources|read|prompts|prompt` in-process against the compiled well-behaved server, in
 * both eras (`npm run build` first).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMcpCommand } from './mcp.js';

const wellBehaved = fileURLToPath(new URL('../../../dist/test-servers/well-behaved.js', import.meta.url));

async function run(action: string, args: string[], era: string, json = false) {
  let stdout = '';
  let stderr = '';
  const code = await runMcpCommand(
    action,
    args,
    { stdio: `"${process.execPath}" "${wellBehaved}" --era ${era}`, ...(json ? { json: true } : {}) },
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    },
  );
  return { code, stdout, stderr };
}

describe.each(['legacy', 'modern'])(
  'furfly mcp resources and prompts (%s era)',
  { timeout: 60_000 },
  (era) => {
    it('resources lists the resources as mentions; read prints one', async () => {
      const list = await run('resources', [], era);
      expect(list).toMatchObject({ code: 0, stderr: '' });
      expect(list.stdout).toMatch(
        /: 2 resources\n {2}@.*:furfly:\/\/test\/readme \(text\/plain\) {2}Read me/,
      );
      const read = await run('read', ['furfly://test/readme'], era);
      expect(read).toMatchObject({ code: 0, stderr: '' });
      expect(read.stdout).toBe(
        '  This is a furfly test server. Its behaviour is known and documented in test-servers/README.md.\n',
      );
      const json = await run('read', ['furfly://test/config.json'], era, true);
      expect(JSON.parse(json.stdout).contents[0]).toMatchObject({
        mimeType: 'application/json',
        text: '{"answer":42,"tags":["test","fixture"]}',
      });
    });

    it('read of an unknown resource fails with the server and the method named (exit 1)', async () => {
      const read = await run('read', ['furfly://test/missing'], era);
      expect(read.code).toBe(1);
      expect(read.stderr).toMatch(
        /request "resources\/read": the server answered with JSON-RPC error -32(002|602)/,
      );
    });

    it('prompts lists prompts with their arguments; prompt runs one by position or name=value, refusing a missing argument', async () => {
      const list = await run('prompts', [], era);
      expect(list.stdout).toMatch(/__greeting <name> {2}Greeting — Greets someone by name\./);
      expect((await run('prompt', ['greeting', 'Ada'], era)).stdout).toBe(
        '[user]\n  Please greet Ada warmly.\n',
      );
      expect((await run('prompt', ['greeting', 'name=Bo'], era)).stdout).toBe(
        '[user]\n  Please greet Bo warmly.\n',
      );
      const missing = await run('prompt', ['greeting'], era);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('prompt "greeting": missing required argument: name');
      const unknown = await run('prompt', ['nope'], era);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('has no prompt "nope"; it has: greeting, summary');
    });

    it('usage errors come before anything starts (exit 2)', async () => {
      expect((await run('read', [], era)).code).toBe(2);
      expect((await run('resources', ['extra'], era)).code).toBe(2);
    });
  },
);
