// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
import { describe, expect, it } from 'vitest';
import type { ResolvedServer } from '../config/types.js';
import { DEFAULT_LIMITS, sandboxPolicy } from '../sandbox/policy.js';
import { createTransport, redactSecrets, secretsOf } from './transport-factory.js';
import { ContainerTransport } from './transports/container/container-transport.js';
import { StreamableHttpTransport } from './transports/http/streamable-http-transport.js';
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
    expect(createTransport('web', entry, { cwd: '/tmp' })).toBeInstanceOf(StreamableHttpTransport);
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

describe('secrets', () => {
  it('takes env values of stdio entries and header values of http entries, ignoring tiny ones', () => {
    expect(secretsOf(stdioEntry({ env: { TOKEN: 'sk-123456', DEBUG: '1' } }))).toEqual(['sk-123456']);
    const http: ResolvedServer = {
      type: 'http',
      url: 'http://x/mcp',
      headers: { Authorization: 'Bearer xyz123' },
      category: 'execute',
      timeout: 10,
      enabled: true,
    };
    expect(secretsOf(http)).toEqual(['Bearer xyz123']);
  });

  it('takes URL credentials and query values, and every value a ${VAR} reference filled in', () => {
    const http: ResolvedServer = {
      type: 'http',
      url: 'https://user:pw-secret-1@example.com/mcp?key=query-secret-2&x=1',
      category: 'execute',
      timeout: 10,
      enabled: true,
    };
    expect(secretsOf(http)).toEqual(expect.arrayContaining(['pw-secret-1', 'query-secret-2']));
    expect(secretsOf(http)).not.toContain('1');
    expect(secretsOf(stdioEntry(), ['sk-from-env-3', 'ab'])).toEqual(['sk-from-env-3']);
  });

  it('redacts every occurrence, longest secret first', () => {
    expect(redactSecrets('a sk-1234 b sk-12345678 c sk-1234', ['sk-1234', 'sk-12345678'])).toBe(
      'a *** b *** c ***',
    );
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
  });
});
