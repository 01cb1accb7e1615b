/**
 * `furfly conformance` sandbox limits (--memory, --cpus, --pids), in-process. No Docker engine is needed:
 * the tests stop where the policy is built (the target the runner copies into the report's `sandbox`)
 * and at the usage errors, which come before anything is started.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, sandboxPolicy } from '../../sandbox/policy.js';
import { sandboxPolicyOf, targetOf } from './conformance.js';
import { runConformance as run } from './conformance.test-helpers.js';

const server = ['node', 'server.js'];

describe('sandboxPolicyOf', () => {
  it('keeps every default when no limit is given', () => {
    expect(sandboxPolicyOf({})).toEqual(sandboxPolicy());
  });

  it('takes the limits as cac passes them (numbers or strings); a limit left out keeps its default', () => {
    expect(sandboxPolicyOf({ memory: 256, cpus: 0.5, pids: 64 })).toMatchObject({
      memoryMiB: 256,
      cpus: 0.5,
      pids: 64,
    });
    expect(sandboxPolicyOf({ memory: '1024', cpus: '2' })).toMatchObject({
      memoryMiB: 1024,
      cpus: 2,
      pids: DEFAULT_LIMITS.pids,
    });
    // The bounds are inclusive where the config schema's are.
    expect(sandboxPolicyOf({ memory: 64, cpus: 64, pids: 16 })).toMatchObject({
      memoryMiB: 64,
      cpus: 64,
      pids: 16,
    });
  });

  it.each([
    [{ memory: 63 }, '--memory must be a whole number of MiB, at least 64'],
    [{ memory: '128.5' }, '--memory must be a whole number of MiB, at least 64'],
    [{ memory: 'lots' }, '--memory must be a whole number of MiB, at least 64'],
    [{ cpus: 0 }, '--cpus must be a number greater than 0 and at most 64'],
    [{ cpus: '-1' }, '--cpus must be a number greater than 0 and at most 64'],
    [{ cpus: 64.5 }, '--cpus must be a number greater than 0 and at most 64'],
    [{ cpus: 'NaN' }, '--cpus must be a number greater than 0 and at most 64'],
    [{ pids: 15 }, '--pids must be a whole number, at least 16'],
    [{ pids: '' }, '--pids takes one value'],
    [{ pids: ['20', '30'] as unknown as string }, '--pids takes one value'],
  ])('refuses %j', (options, message) => {
    expect(() => sandboxPolicyOf(options)).toThrow(message);
  });
});

describe('furfly conformance --sandbox docker limits', () => {
  it('puts the limits into the sandbox policy of the target (which the report states)', () => {
    const target = targetOf({ sandbox: 'docker', memory: 256, cpus: '0.5', pids: 40 }, server);
    expect(target.transport).toBe('stdio');
    if (target.transport !== 'stdio') return;
    expect(target.sandbox?.kind === 'docker' ? target.sandbox.policy : undefined).toEqual(
      sandboxPolicy({ memoryMiB: 256, cpus: 0.5, pids: 40 }),
    );
    expect(targetOf({ sandbox: 'docker' }, server)).toMatchObject({ sandbox: { policy: sandboxPolicy() } });
  });

  it('exits 2 with a usage error for a limit out of range, before anything starts', async () => {
    const result = await run({ sandbox: 'docker', memory: 32 }, server);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('furfly conformance: --memory must be a whole number of MiB, at least 64\n');
    expect(result.stdout).toBe('');
    const cpus = await run({ sandbox: 'docker', cpus: 0 }, server);
    expect(cpus.code).toBe(2);
    expect(cpus.stderr).toContain('--cpus must be a number greater than 0');
  });

  it('exits 2 when a limit is given without --sandbox docker', async () => {
    const one = await run({ pids: 64 }, server);
    expect(one.code).toBe(2);
    expect(one.stderr).toBe('furfly conformance: --pids applies to --sandbox docker only\n');
    const http = await run({ url: 'http://127.0.0.1:1/mcp', memory: 256, cpus: 1 }, []);
    expect(http.code).toBe(2);
    expect(http.stderr).toBe('furfly conformance: --memory, --cpus apply to --sandbox docker only\n');
  });
});

describe('furfly conformance --sandbox os', () => {
  it('runs the server in the OS sandbox with the hosts --allow-host lists and no environment of furfly', () => {
    expect(targetOf({ sandbox: 'os', allowHost: ['a.example,b.example', 'c.example'] }, server)).toEqual({
      transport: 'stdio',
      command: { command: 'node', args: ['server.js'], cwd: process.cwd(), env: {} },
      sandbox: { kind: 'os', allowedHosts: ['a.example', 'b.example', 'c.example'] },
    });
    expect(targetOf({ sandbox: 'none' }, server)).toEqual({
      transport: 'stdio',
      command: { command: 'node', args: ['server.js'] },
    });
  });

  it('exits 2 with the reason where the OS sandbox cannot run, before the server starts', async () => {
    const previous = process.env.FURFLY_OS_SANDBOX;
    process.env.FURFLY_OS_SANDBOX = 'off';
    try {
      const result = await run({ sandbox: 'os' }, ['/nonexistent/furfly-no-such-server']);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'furfly conformance: cannot start the server in the OS sandbox: FURFLY_OS_SANDBOX=off is set in the environment\n',
      );
      expect(result.stdout).toBe('');
    } finally {
      if (previous === undefined) delete process.env.FURFLY_OS_SANDBOX;
      else process.env.FURFLY_OS_SANDBOX = previous;
    }
  });

  it('exits 2 for --allow-host without --sandbox os, an unknown kind, or docker flags with os', async () => {
    const cases: [Parameters<typeof run>[0], string][] = [
      [{ allowHost: 'a.example' }, '--allow-host applies to --sandbox os only'],
      [{ sandbox: 'docker', allowHost: 'a.example' }, '--allow-host applies to --sandbox os only'],
      [{ sandbox: 'vm' }, '--sandbox must be os, docker or none'],
      [{ sandbox: 'os', memory: 256 }, '--memory applies to --sandbox docker only'],
      [{ sandbox: 'os', mount: '.' }, '--mount applies to --sandbox docker only'],
    ];
    for (const [options, message] of cases) {
      const result = await run(options, server);
      expect(result.code, message).toBe(2);
      expect(result.stderr).toBe(`furfly conformance: ${message}\n`);
    }
  });
});

describe('furfly conformance targets (parsed by src/mcp/server-target.ts, shared with furfly mcp)', () => {
  it('takes a stdio server from --stdio as well as after --', () => {
    const expected = {
      transport: 'stdio',
      command: { command: 'node', args: ['my server.js', '--port', '3'] },
    };
    expect(targetOf({ stdio: `node 'my server.js' --port 3` }, [])).toEqual(expected);
    expect(targetOf({}, ['node', 'my server.js', '--port', '3'])).toEqual(expected);
  });

  it('sends --header names lower-cased, so a header a check sets replaces the user one', () => {
    expect(targetOf({ url: 'http://127.0.0.1:1/mcp', header: ['Authorization: Bearer t0ken'] }, [])).toEqual({
      transport: 'http',
      url: 'http://127.0.0.1:1/mcp',
      headers: { authorization: 'Bearer t0ken' },
    });
  });

  it('exits 2 for two targets at once or a header the transport sets itself, quoting no value', async () => {
    const both = await run({ stdio: 'node server.js --token s3cret' }, server);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'furfly conformance: give one server, not both --stdio and a command after --\n',
    );
    const reserved = await run({ url: 'http://127.0.0.1:1/mcp', header: 'Mcp-Session-Id: s3cret' }, []);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toContain('is set by the MCP transport');
    expect(reserved.stderr).not.toContain('s3cret');
  });
});
