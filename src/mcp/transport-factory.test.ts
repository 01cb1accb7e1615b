// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
import { describe, expect, it } from 'vitest';
import type { ResolvedServer } from '../config/types.js';
import { Redactor } from '../redaction/index.js';
import { DEFAULT_LIMITS, sandboxPolicy } from '../sandbox/policy.js';
import { createTransport, redactorFor } from './transport-factory.js';
import { ContainerTransport } from './transports/container/container-transport.js';
import { HttpTransportWithSseFallback } from './transports/http/http-transport-with-sse-fallback.js';
import { LegacySseTransport } from './transports/http/legacy-sse-transport.js';
import { StdioTransport } from './transports/stdio/stdio-transport.js';

const stdioEntry = (extra: Record<string, unknown> = {}) =>
  ({
    type: 'stdio',
    command: 'node',
    args: ['server.js'],
    sandbox: 'none',
    category: 'execute',
    timeout: 10,
    enabled: true,
    ...extra,
  }) as ResolvedServer;

describe('createTransport', () => {
  it('builds a stdio transport named after the server, not the command line', () => {
    const transport = createTransport('files', stdioEntry({ args: ['--token', 'abc'] }), { cwd: '/tmp' });
    expect(transport).toBeInstanceOf(StdioTransport);
    expect((transport as StdioTransport).name).toBe('files');
  });

  it('builds an HTTP transport for an http entry', () => {
    const entry = {
      type: 'http',
      url: 'http://127.0.0.1:1/mcp',
      category: 'read',
      timeout: 5,
      enabled: true,
    } as ResolvedServer;
    // Streamable HTTP, behind the fallback to the old HTTP+SSE transport.
    const transport = createTransport('web', entry, { cwd: '/tmp' });
    expect(transport).toBeInstanceOf(HttpTransportWithSseFallback);
    expect((transport as HttpTransportWithSseFallback).transport).toBe('streamable-http');
  });

  it('builds the old HTTP+SSE transport for an sse entry', () => {
    const entry = {
      type: 'sse',
      url: 'http://127.0.0.1:1/sse',
      category: 'read',
      timeout: 5,
      enabled: true,
    } as ResolvedServer;
    const transport = createTransport('old', entry, { cwd: '/tmp' });
    expect(transport).toBeInstanceOf(LegacySseTransport);
    expect(transport.eraHint).toBe('legacy');
  });

  it('runs sandbox: docker entries in a container transport (nothing starts until start())', () => {
    const transport = createTransport('boxed', stdioEntry({ sandbox: 'docker', cwd: 'srv' }), {
      cwd: '/tmp',
    });
    expect(transport).toBeInstanceOf(ContainerTransport);
    expect((transport as ContainerTransport).name).toBe('boxed');
    expect((transport as ContainerTransport).containerId).toBeUndefined();
  });

  it("passes the entry's sandbox_limits to the container's policy; limits left out keep the defaults", () => {
    const limited = createTransport(
      'boxed',
      stdioEntry({ sandbox: 'docker', sandbox_limits: { memory_mb: 256, cpus: 0.5, pids: 64 } }),
      { cwd: '/tmp' },
    ) as ContainerTransport;
    expect(limited.policy).toEqual(sandboxPolicy({ memoryMiB: 256, cpus: 0.5, pids: 64 }));
    expect(limited.policy).toMatchObject({ memoryMiB: 256, cpus: 0.5, pids: 64 });

    const partly = createTransport('boxed', stdioEntry({ sandbox: 'docker', sandbox_limits: { pids: 32 } }), {
      cwd: '/tmp',
    }) as ContainerTransport;
    expect(partly.policy).toMatchObject({
      memoryMiB: DEFAULT_LIMITS.memoryMiB,
      cpus: DEFAULT_LIMITS.cpus,
      pids: 32,
    });

    const plain = createTransport('boxed', stdioEntry({ sandbox: 'docker' }), { cwd: '/tmp' });
    expect((plain as ContainerTransport).policy).toEqual(sandboxPolicy());
  });
});

describe('redactorFor', () => {
  it("masks a stdio entry's env values and ignores values too short to mask", () => {
    const redactor = redactorFor(stdioEntry({ env: { TOKEN: 'sk-123456789', DEBUG: '1' } }));
    expect(redactor.text('token sk-123456789, debug 1')).toBe('token ***, debug 1');
  });

  it('masks header values and their tokens, so a server echoing only the token is caught', () => {
    const http: ResolvedServer = {
      type: 'http',
      url: 'http://x/mcp',
      headers: { Authorization: 'Bearer xyz-123456789' },
      category: 'execute',
      timeout: 10,
      enabled: true,
    };
    const redactor = redactorFor(http);
    expect(redactor.text('sent Bearer xyz-123456789')).toBe('sent ***');
    expect(redactor.text('your token: xyz-123456789')).toBe('your token: ***');
  });

  it('masks URL credentials and query values, every ${VAR} value, and what the session knows', () => {
    const http: ResolvedServer = {
      type: 'http',
      url: 'https://user:pw-secret-1@example.com/mcp?key=query-secret-2&x=1',
      category: 'execute',
      timeout: 10,
      enabled: true,
    };
    const session = new Redactor(['session-secret-4']);
    const redactor = redactorFor(http, ['sk-from-env-3', 'ab'], session);
    expect(redactor.text('pw-secret-1 query-secret-2 sk-from-env-3 session-secret-4 x=1 ab')).toBe(
      '*** *** *** *** x=1 ab',
    );
  });
});
