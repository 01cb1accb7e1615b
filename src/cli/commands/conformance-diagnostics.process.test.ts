/**
 * What a user sees when something goes wrong, through the built binary as a user runs it: the last
 * lines of a dying server's stderr in the report (redacted, sanitized), and with `--verbose` the wire
 * exchange of each failed check (a header value the user gave never shown).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, stopAllServers, serverPath as testServer } from '../../../test-servers/testing.js';

const cli = fileURLToPath(new URL('../../../dist/src/cli/main.js', import.meta.url));

afterEach(async () => {
  await stopAllServers();
});

function furfly(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface JsonReport {
  server: { initialized?: boolean; stderr?: string[]; name: string } | null;
  checks: { id: string; status: string; wire?: string[] }[];
}

const SECRET = 'ghp_furflyDiagnosticsSecret0123456789';

describe('a server that dies: its stderr is in the report', () => {
  it('did not initialize: JSON server.stderr, redacted', { timeout: 60_000 }, async () => {
    const result = await furfly(
      [
        'conformance',
        '--json',
        '--timeout',
        '3000',
        '--only',
        'lifecycle.initialize-valid',
        '--',
        process.execPath,
        testServer('crashing'),
        '--crash-at',
        'handshake',
        '--stderr',
        `fatal: cannot read /etc/furfly-test.conf (token ${SECRET})`,
      ],
      { GITHUB_TOKEN: SECRET },
    );
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.server).toMatchObject({ initialized: false });
    // The secret-named variable the server inherited is masked wherever its stderr repeats it.
    expect(report.server?.stderr).toEqual(['fatal: cannot read /etc/furfly-test.conf (token ***)']);
  });

  it('exits mid-run: a stderr block in the text report, control characters escaped', {
    timeout: 60_000,
  }, async () => {
    const result = await furfly([
      'conformance',
      '--timeout',
      '3000',
      '--only',
      'tools.unknown-tool-answered',
      '--',
      process.execPath,
      testServer('crashing'),
      '--crash-at',
      'call',
      '--stderr',
      'panic: \u001b[31mout of cheese\u001b[0m',
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('server: furfly-test-crashing');
    expect(result.stdout).toMatch(/server stderr \(last 1 line\):\n {2}\| panic: \\x1b\[31mout of cheese/);
    expect(result.stdout).not.toContain('\u001b');
  });

  it('a healthy server: no stderr in the report', { timeout: 60_000 }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--only',
      'lifecycle.ping',
      '--',
      process.execPath,
      testServer('noisy'),
    ]);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.server?.name).toBe('furfly-test-noisy');
    expect(report.server).not.toHaveProperty('stderr');
  });
});

describe('--verbose: the wire exchange of a failed check', () => {
  it('stdio: the messages of the failing check, and nothing for passing ones', {
    timeout: 60_000,
  }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--verbose',
      '--only',
      'lifecycle.ping,jsonrpc.method-not-found',
      '--',
      process.execPath,
      testServer('spec-breaker'),
      '--break',
      'ping-result',
    ]);
    const report = JSON.parse(result.stdout) as JsonReport;
    const ping = report.checks.find((check) => check.id === 'lifecycle.ping');
    expect(ping?.status).toBe('fail');
    expect(ping?.wire?.some((line) => line.startsWith('→ ') && line.includes('"method":"ping"'))).toBe(true);
    expect(ping?.wire?.some((line) => line.startsWith('← ') && line.includes('"pong":true'))).toBe(true);
    const passed = report.checks.find((check) => check.id === 'jsonrpc.method-not-found');
    expect(passed?.status).toBe('pass');
    expect(passed).not.toHaveProperty('wire');
  });

  it('without --verbose there is no transcript', { timeout: 60_000 }, async () => {
    const result = await furfly([
      'conformance',
      '--json',
      '--only',
      'lifecycle.ping',
      '--',
      process.execPath,
      testServer('spec-breaker'),
      '--break',
      'ping-result',
    ]);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.checks[0]).not.toHaveProperty('wire');
  });

  it('HTTP: status lines and messages, the user header named but never its value', {
    timeout: 60_000,
  }, async () => {
    const server = await startHttpServer('spec-breaker', ['--break', 'any-version-header']);
    const result = await furfly([
      'conformance',
      '--verbose',
      '--only',
      'http.protocol-version-header',
      '--url',
      server.url,
      '--header',
      `Authorization: Bearer ${SECRET}`,
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('      wire:');
    expect(result.stdout).toMatch(
      /→ POST http:\/\/127\.0\.0\.1:\d+\/mcp \[[^\]]*mcp-protocol-version: 1999-01-01/,
    );
    expect(result.stdout).toContain('authorization: (given by the user)');
    expect(result.stdout).toMatch(/← HTTP 200 \(application\/json\)/);
    expect(result.stdout).not.toContain(SECRET);
  });
});
