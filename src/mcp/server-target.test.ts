import { describe, expect, it } from 'vitest';
import { parseServerTarget, type ServerTarget, TargetUsageError } from './server-target.js';

const SECRET = 'tok-5ecret-value';

function usageError(run: () => unknown): TargetUsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TargetUsageError);
    return error as TargetUsageError;
  }
  throw new Error('expected a usage error');
}

describe('parseServerTarget', () => {
  it('names no server when no flag names one', () => {
    expect(parseServerTarget({})).toBeUndefined();
    expect(parseServerTarget({}, [])).toBeUndefined();
  });

  it('--stdio and a command after -- give the same target', () => {
    const fromLine = parseServerTarget({ stdio: 'node "/srv/my server.js" --port 3' });
    const fromWords = parseServerTarget({}, ['node', '/srv/my server.js', '--port', '3']);
    expect(fromLine).toEqual(fromWords);
    expect(fromLine).toEqual({
      transport: 'stdio',
      command: 'node',
      args: ['/srv/my server.js', '--port', '3'],
      name: 'node my server.js',
    });
  });

  it('names a stdio server by program and script only, never by other words', () => {
    const name = (line: string) => (parseServerTarget({ stdio: line }) as ServerTarget).name;
    expect(name(`/usr/bin/node /srv/mcp/server.js --api-key ${SECRET}`)).toBe('node server.js');
    expect(name(`uvx mcp-server-git --token ${SECRET}`)).toBe('uvx');
    expect(name('python3 srv.py')).toBe('python3 srv.py');
  });

  it('takes the last value of a repeated --stdio or --url', () => {
    const target = parseServerTarget({ url: ['http://127.0.0.1:1/a', 'http://127.0.0.1:2/b'] });
    expect(target?.transport === 'http' && target.url.href).toBe('http://127.0.0.1:2/b');
  });

  it('parses --url with repeated --header, names it by host, keeps header names as given', () => {
    const target = parseServerTarget({
      url: `http://127.0.0.1:8123/mcp?key=${SECRET}`,
      header: [`Authorization: Bearer ${SECRET}`, 'X-Trace:  a:b '],
    });
    expect(target).toEqual({
      transport: 'http',
      url: new URL(`http://127.0.0.1:8123/mcp?key=${SECRET}`),
      headers: { Authorization: `Bearer ${SECRET}`, 'X-Trace': 'a:b' },
      name: '127.0.0.1:8123',
    });
  });

  it.each([
    [{ stdio: 'node x', url: 'http://127.0.0.1:9/mcp' }, [], 'give one server, not both --stdio and --url'],
    [{ url: 'http://127.0.0.1:9/mcp' }, ['node'], 'not both --url and a command after --'],
    [{ stdio: 'node x' }, ['node'], 'not both --stdio and a command after --'],
    [{ stdio: 'node x', header: 'A: b' }, [], '--header goes with --url'],
    [{ header: 'A: b' }, [], '--header goes with --url'],
    [{ url: 'ftp://example.com/mcp' }, [], '--url must be an absolute http:// or https:// URL'],
    [{ url: `not a url ${SECRET}` }, [], '--url must be an absolute http:// or https:// URL'],
    [{ url: `http://user:${SECRET}@127.0.0.1/mcp` }, [], '--url must not contain a user or password'],
    [{ url: 'http://127.0.0.1/mcp', header: `no colon ${SECRET}` }, [], '--header: a header must look like'],
    [{ url: 'http://127.0.0.1/mcp', header: `${SECRET} x: y` }, [], '--header: invalid HTTP header name'],
    [{ url: 'http://127.0.0.1/mcp', header: `X-A: ${SECRET}\u0007` }, [], 'characters HTTP does not allow'],
    [{ url: 'http://127.0.0.1/mcp', header: 'Mcp-Session-Id: 1' }, [], 'set by the MCP transport'],
    [{ url: true }, [], '--url needs a value'],
    [{ stdio: '   ' }, [], '--stdio: the command line is empty'],
    [{ stdio: `node "unclosed ${SECRET}` }, [], '--stdio: '],
  ] as const)('refuses %j %j with a message that quotes no value', (flags, command, message) => {
    const error = usageError(() => parseServerTarget(flags, command));
    expect(error.message).toContain(message);
    expect(error.message).not.toContain(SECRET);
  });
});
