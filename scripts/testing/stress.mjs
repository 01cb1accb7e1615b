#!/usr/bin/env node
/**
 * `npm run test:stress`: the proof that no test depends on timing that load can break. Runs the fast
 * suite (`npm test`'s project) several times in a row while CPU hogs keep every core busy, and fails on
 * the first red run. Build first (npm runs `pretest:stress`).
 *
 *   FURFLY_STRESS_RUNS   how many runs in a row (default 3)
 *   FURFLY_STRESS_HOGS   how many busy-looping processes beside them (default: one per core)
 *   FURFLY_STRESS_PROJECT  the vitest project to run (default fast; `slow` for the matrices)
 *
 * Every hog is a child process ended by its pid when the script ends, however it ends.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const runs = Number(process.env.FURFLY_STRESS_RUNS ?? 3);
const hogCount = Number(process.env.FURFLY_STRESS_HOGS ?? availableParallelism());
const project = process.env.FURFLY_STRESS_PROJECT ?? 'fast';

const hogs = [];
function stopHogs() {
  for (const hog of hogs) {
    try {
      process.kill(hog.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

for (let i = 0; i < hogCount; i++) {
  hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}
console.log(`test:stress: ${runs} runs of the ${project} tests beside ${hogCount} CPU hog(s)`);

const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', '--project', project], {
      cwd: root,
      stdio: 'inherit',
    });
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (code !== 0) {
    console.error(`test:stress: run ${run} of ${runs} went red (exit ${code}) after ${seconds} s under load`);
    process.exit(1);
  }
  console.log(`test:stress: run ${run} of ${runs} green in ${seconds} s under load`);
}
console.log(`test:stress: ${runs} of ${runs} runs green beside ${hogCount} CPU hog(s)`);
