/**
 * `furfly sandbox prepare | clean`: build (or confirm) the local runtime image ahead of first use, and
 * remove any sandbox container a crash left behind. `runSandboxCommand` takes its output streams so
 * tests can run it in-process.
 */

import type { CAC } from 'cac';
import { removeLabelledContainers } from '../../sandbox/cleanup.js';
import { DockerUnavailableError } from '../../sandbox/docker-engine.js';
import { ensureImage } from '../../sandbox/image.js';
import { describePolicy, SANDBOX_LABEL, sandboxPolicy } from '../../sandbox/policy.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';
import { actionUsage } from '../action-usage.js';

export interface SandboxIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const SANDBOX_ACTIONS = ['prepare', 'clean'] as const;

/** `ownerPid` scopes `clean` to one process's containers (tests, so parallel files keep theirs). */
export async function runSandboxCommand(
  action: string | undefined,
  io: SandboxIo,
  options: { ownerPid?: number } = {},
): Promise<number> {
  try {
    if (action === 'prepare') {
      const started = performance.now();
      const image = await ensureImage();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.stdout(
        `${image.built ? 'built' : 'already present:'} ${image.tag}${image.built ? ` in ${seconds} s` : ''}\n`,
      );
      io.stdout(`servers run with: ${describePolicy(sandboxPolicy())}\n`);
      return 0;
    }
    if (action === 'clean') {
      const removed = await removeLabelledContainers(options.ownerPid);
      io.stdout(
        `removed ${removed.length} container${removed.length === 1 ? '' : 's'} labelled ${SANDBOX_LABEL}\n`,
      );
      return 0;
    }
    io.stderr(`furfly sandbox: ${actionUsage('sandbox', action, SANDBOX_ACTIONS)}\n`);
    return 2;
  } catch (error) {
    // Docker's own messages (build output, daemon errors) are shown, never obeyed.
    io.stderr(`furfly sandbox ${terminalLine(String(action))}: ${terminalText((error as Error).message)}\n`);
    return error instanceof DockerUnavailableError ? 3 : 1;
  }
}

export function registerSandboxCommands(cli: CAC): void {
  cli
    .command(
      'sandbox [action]',
      'Docker sandbox for untrusted servers: prepare (build the runtime image) | clean',
    )
    .example('furfly sandbox prepare')
    .example('furfly sandbox clean')
    .action(async (action: string | undefined) => {
      process.exitCode = await runSandboxCommand(action, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    });
}
