#!/usr/bin/env node
/**
 * `npm run demo` (after `npm run build`, which predemo does): show `furfly mcp tools` and
 * `furfly mcp call` against the bundled well-behaved test server, then `furfly conformance` against the
 * well-behaved server (passes, exit 0) and a misbehaving one (fails, exit 1: expected, it is a demo),
 * then a batch over the bundled test servers that writes the HTML report page and says where it is,
 * exactly as a user would type them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const furfly = path.join(root, 'dist/src/cli/main.js');
const server = `node ${path.relative(root, path.join(root, 'dist/test-servers/well-behaved.js'))}`;

const node = 'node';
const htmlReport = 'test-output/demo-report.html';
const breaker = path.relative(root, path.join(root, 'dist/test-servers/spec-breaker.js'));

/** [what the step shows, arguments, the exit code that step is meant to end with] */
const steps = [
  ['List the tools of the bundled well-behaved server.', ['mcp', 'tools', '--stdio', server], 0],
  ['Call one of them.', ['mcp', 'call', '--stdio', server, 'echo', '{"message":"hello from furfly"}'], 0],
  [
    'The same with the JSON result.',
    ['mcp', 'call', '--stdio', server, 'add', '{"a":2,"b":40}', '--json'],
    0,
  ],
  [
    'A tool that reports an error: furfly shows it and exits 1.',
    ['mcp', 'call', '--stdio', server, 'fail', '{"message":"a tool-level error (exit code 1)"}'],
    1,
  ],
  [
    'Vet the well-behaved server against the MCP specification: every check passes, exit 0.',
    ['conformance', '--', node, server.split(' ')[1]],
    0,
  ],
  [
    'Vet a deliberately broken server (it answers ping with a non-empty result). The MUST failure and\n' +
      'exit code 1 are the point of this step: this is what a failing server looks like.',
    ['conformance', '--', node, breaker, '--break', 'ping-result'],
    1,
  ],
  [
    'Vet all the bundled test servers in one batch, two at a time, and write the HTML report page. Some of\n' +
      'them are broken on purpose and one needs a key you did not set, so the batch ends with exit code 1.',
    ['conformance', '--batch', 'test-servers/demo-batch.yaml', '--jobs', '2', '--html', htmlReport],
    1,
  ],
];

/** Quote a word for display the way the user would type it in a POSIX shell. */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

console.log(
  `furfly demo: ${steps.length} steps run the built CLI as you would type it. Three of them end with exit code 1 on\n` +
    'purpose (a tool error, a broken server, a batch with broken servers); the demo itself succeeds when every\n' +
    'step ends as announced.',
);
// The batch step writes its HTML page here (gitignored).
mkdirSync(path.join(root, 'test-output'), { recursive: true });
let unexpected = 0;
for (const [what, args, expectedCode] of steps) {
  console.log(`\n# ${what}\n$ furfly ${args.map(shellWord).join(' ')}`);
  // The conformance command spawns `node` itself; give it this very Node so the demo does not depend on PATH.
  const resolved = args.map((word) => (word === node ? process.execPath : word));
  const run = spawnSync(process.execPath, [furfly, ...resolved], { cwd: root, stdio: 'inherit' });
  const ended = run.status ?? run.signal;
  const asExpected = run.status === expectedCode;
  console.log(`(exit code ${ended}${asExpected ? ', as expected' : `; expected ${expectedCode}`})`);
  if (!asExpected) unexpected++;
}
if (unexpected > 0) {
  console.error(`\ndemo: ${unexpected} step(s) did not end as expected`);
  process.exitCode = 1;
} else {
  console.log(
    `\ndemo: all ${steps.length} steps ended as expected (the exit-code-1 steps show failures on purpose).`,
  );
  console.log(`The batch's HTML report (open it in a browser): ${path.join(root, htmlReport)}`);
}
