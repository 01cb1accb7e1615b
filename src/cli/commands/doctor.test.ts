import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxSuite, skipWithoutSandbox } from '../../sandbox/os-sandbox-gate.test-helpers.js';
import { runDoctor } from './doctor.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'furfly-doctor-test-'));
  mkdirSync(path.join(base, 'home'));
  mkdirSync(path.join(base, 'project', '.furflycode'), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function doctor(env: Record<string, string | undefined>) {
  let out = '';
  const code = await runDoctor({
    stdout: (text) => {
      out += text;
    },
    cwd: path.join(base, 'project'),
    env: { PATH: process.env.PATH, HOME: path.join(base, 'home'), ...env },
    homeDir: path.join(base, 'home'),
  });
  return { code, out };
}

describe('furfly doctor', () => {
  it('says why the sandbox is missing, and that the API key is missing, and exits 1', async () => {
    const { code, out } = await doctor({ FURFLY_OS_SANDBOX: 'off' });
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL OS sandbox: not available: FURFLY_OS_SANDBOX=off/m);
    expect(out).toContain('auto mode asks before every command');
    expect(out).toMatch(/^FAIL API key: missing/m);
    expect(out).toMatch(/^ok {3}config: valid/m);
  });

  it('reports an invalid config and a server that cannot be reached or found', async () => {
    const { code, out } = await doctor({ FURFLY_OS_SANDBOX: 'off', ANTHROPIC_API_KEY: 'k' });
    expect(code).toBe(1);
    expect(out).toMatch(/^ok {3}API key: present/m);
    writeFileSync(path.join(base, 'project', '.furflycode', 'config.yaml'), 'max_iterations: many\n');
    const bad = await doctor({ FURFLY_OS_SANDBOX: 'off', ANTHROPIC_API_KEY: 'k' });
    expect(bad.out).toMatch(/^FAIL config: has problems/m);
    expect(bad.out).toContain('max_iterations');
  });

  it('checks each enabled server from the user config', async () => {
    const server = http.createServer((_req, res) => res.writeHead(405).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      mkdirSync(path.join(base, 'home', '.furflycode'));
      writeFileSync(
        path.join(base, 'home', '.furflycode', 'config.yaml'),
        [
          'mcp_servers:',
          '  up: { type: http, url: "http://127.0.0.1:' + port + '/mcp" }',
          '  gone: { type: stdio, command: furfly-no-such-command-xyz }',
          '  node: { type: stdio, command: node }',
        ].join('\n'),
      );
      const { out } = await doctor({ FURFLY_OS_SANDBOX: 'off', ANTHROPIC_API_KEY: 'k' });
      expect(out).toMatch(/^ok {3}server up: reachable \(HTTP 405\)/m);
      expect(out).toMatch(/^FAIL server gone: command not found: furfly-no-such-command-xyz/m);
      expect(out).toMatch(/^ok {3}server node: command found/m);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(skipWithoutSandbox)(sandboxSuite('finds the sandbox working here'), async () => {
    const { out } = await doctor({ ANTHROPIC_API_KEY: 'k' });
    expect(out).toMatch(/^ok {3}OS sandbox: works/m);
  });
});
