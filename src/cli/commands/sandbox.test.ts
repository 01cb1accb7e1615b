import { describe, expect, it } from 'vitest';
import { dockerSuite, skipWithoutDocker } from '../../sandbox/docker-gate.test-helpers.js';
import { runSandboxCommand } from './sandbox.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) }, out, err };
}

describe('furfly sandbox', () => {
  it('rejects an unknown action with exit code 2', async () => {
    const { io, err } = capture();
    expect(await runSandboxCommand('nonsense', io)).toBe(2);
    expect(err.join('')).toContain(
      'furfly sandbox: unknown action "nonsense": use furfly sandbox prepare | clean',
    );
    const missing = capture();
    expect(await runSandboxCommand(undefined, missing.io)).toBe(2);
    expect(missing.err.join('')).toContain('furfly sandbox: missing action');
  });
});

describe.skipIf(skipWithoutDocker)(dockerSuite('furfly sandbox with Docker'), () => {
  it('prepare reports the image and the policy; clean reports what it removed', async () => {
    const prepared = capture();
    expect(await runSandboxCommand('prepare', prepared.io)).toBe(0);
    expect(prepared.out.join('')).toMatch(/furfly-sandbox-node:\S+/);
    expect(prepared.out.join('')).toContain('network none');
    const cleaned = capture();
    expect(await runSandboxCommand('clean', cleaned.io, { ownerPid: process.pid })).toBe(0);
    expect(cleaned.out.join('')).toMatch(/^removed \d+ containers? labelled dev\.furfly\.sandbox/);
  }, 120_000);
});
