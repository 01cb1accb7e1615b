/**
 * Proves the OS sandbox works here by running one command in it: the probe says the parts are
 * present, this says they work together (user namespaces allowed, seccomp helper runnable, a write
 * outside the writable folder refused).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probeOsSandbox, wrapCommand } from './os-sandbox.js';

export type OsSandboxCheck = { ok: true; detail: string } | { ok: false; detail: string; install?: string };

export async function checkOsSandbox(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<OsSandboxCheck> {
  const probe = await probeOsSandbox(env);
  if (!probe.available) {
    return { ok: false, detail: probe.reason, ...(probe.install ? { install: probe.install } : {}) };
  }
  const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-doctor-')));
  try {
    const wrapped = await wrapCommand(
      `echo inside > ${folder}/ok && (echo escape > /furfly-doctor-escape) 2>/dev/null || echo refused`,
      { writable: [folder], readOnly: [], unreadable: [], allowedHosts: [] },
    );
    try {
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(wrapped.argv[0]!, wrapped.argv.slice(1), {
          cwd: folder,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (chunk) => {
          text += chunk;
        });
        child.stderr.on('data', (chunk) => {
          text += chunk;
        });
        child.on('error', reject);
        child.on('close', () => resolve(text));
      });
      if (output.includes('refused')) {
        return {
          ok: true,
          detail: `${probe.platform}: a command ran contained (a write outside was refused)`,
        };
      }
      return { ok: false, detail: `a test command did not run as expected: ${output.trim().slice(0, 300)}` };
    } finally {
      wrapped.done();
    }
  } catch (error) {
    return { ok: false, detail: `the sandbox did not start: ${(error as Error).message}` };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
