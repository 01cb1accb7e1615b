#!/usr/bin/env node
/**
 * `npm run demo` (after `npm run build`, which predemo does): show `furfly mcp tools` and
 * `furfly mcp call` against the bundled well-behaved test server, exactly as a user would type them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const furfly = path.join(root, 'dist/src/cli/main.js');
const server = `node ${path.relative(root, path.join(root, 'dist/test-servers/well-behaved.js'))}`;

const steps = [
  ['mcp', 'tools', '--stdio', server],
  ['mcp', 'call', '--stdio', server, 'echo', '{"message":"hello from furfly"}'],
  ['mcp', 'call', '--stdio', server, 'add', '{"a":2,"b":40}', '--json'],
  ['mcp', 'call', '--stdio', server, 'fail', '{"message":"a tool-level error (exit code 1)"}'],
];

/** Quote a word for display the way the user would type it in a POSIX shell. */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

let unexpected = 0;
for (const [index, args] of steps.entries()) {
  console.log(`\n$ furfly ${args.map(shellWord).join(' ')}`);
  const run = spawnSync(process.execPath, [furfly, ...args], { cwd: root, stdio: 'inherit' });
  const expectedCode = index === steps.length - 1 ? 1 : 0;
  console.log(`(exit code ${run.status ?? run.signal})`);
  if (run.status !== expectedCode) unexpected++;
}
if (unexpected > 0) {
  console.error(`\ndemo: ${unexpected} step(s) did not end as expected`);
  process.exitCode = 1;
}
