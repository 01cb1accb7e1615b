#!/usr/bin/env node
/**
 * `npm run demo` (after `npm run build`, which predemo does): show `furfly mcp tools` and
 * `furfly mcp call` against the bundled well-behaved test server, then `furfly conformance` against the
 * well-behaved server (passes, exit 0) and a misbehaving one (fails, exit 1: expected, it is a demo),
 * exactly as a user would type them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const furfly = path.join(root, 'dist/src/cli/main.js');
const server = `node ${path.relative(root, path.join(root, 'dist/test-servers/well-behaved.js'))}`;

const node = 'node';
const breaker = path.relative(root, path.join(root, 'dist/test-servers/spec-breaker.js'));

/** [arguments, the exit code that step is meant to end with] */
const steps = [
  [['mcp', 'tools', '--stdio', server], 0],
  [['mcp', 'call', '--stdio', server, 'echo', '{"message":"hello from furfly"}'], 0],
  [['mcp', 'call', '--stdio', server, 'add', '{"a":2,"b":40}', '--json'], 0],
  [['mcp', 'call', '--stdio', server, 'fail', '{"message":"a tool-level error (exit code 1)"}'], 1],
  [['conformance', '--', node, server.split(' ')[1]], 0],
  // A server that answers ping with a non-empty result: a MUST failure, so exit code 1.
  [['conformance', '--', node, breaker, '--break', 'ping-result'], 1],
];

/** Quote a word for display the way the user would type it in a POSIX shell. */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

let unexpected = 0;
for (const [args, expectedCode] of steps) {
  console.log(`\n$ furfly ${args.map(shellWord).join(' ')}`);
  // The conformance command spawns `node` itself; give it this very Node so the demo does not depend on PATH.
  const resolved = args.map((word) => (word === node ? process.execPath : word));
  const run = spawnSync(process.execPath, [furfly, ...resolved], { cwd: root, stdio: 'inherit' });
  console.log(`(exit code ${run.status ?? run.signal})`);
  if (run.status !== expectedCode) unexpected++;
}
if (unexpected > 0) {
  console.error(`\ndemo: ${unexpected} step(s) did not end as expected`);
  process.exitCode = 1;
}
