/**
 * Client fixture suite, stdio: shutdown. close() stops every kind of server (the stubborn one only by
 * SIGKILL), fails what is pending, and is idempotent. The harness fails any test that leaves a process
 * it started alive; the last check here asks the transport's own registry the same question.
 */
import { afterAll, describe, expect } from 'vitest';
import { liveChildCount } from '../../src/mcp/transports/stdio/process.js';
import { isAlive } from '../../test-servers/testing.js';
import { resultText, test } from './harness.test-helpers.js';

describe.concurrent('close() stops the server', () => {
  test('stubborn (ignores stdin EOF and SIGTERM): killed by SIGKILL, close() resolves, pid gone', async ({
    harness,
  }) => {
    const { client, transport, closes } = await harness.connectStdio('stubborn');
    const pid = transport.pid!;
    expect(resultText(await client.callTool('echo', { message: 'alive' }))).toBe('alive');
    expect(isAlive(pid)).toBe(true);
    await client.close();
    expect(isAlive(pid)).toBe(false);
    expect(closes).toEqual([{ message: 'closed by the client', code: null, signal: 'SIGKILL' }]);
  });

  test('well-behaved: ends on stdin EOF by itself, no signal needed', async ({ harness }) => {
    const { client, transport, closes } = await harness.connectStdio('well-behaved', [], {
      stdinGraceMs: 10_000,
    });
    const pid = transport.pid!;
    await client.close();
    expect(isAlive(pid)).toBe(false);
    expect(closes).toEqual([{ message: 'closed by the client', code: 0, signal: null }]);
  });

  test('with a call pending: the call fails as closed by the client, and the process is gone', async ({
    harness,
  }) => {
    const { client, transport } = await harness.connectStdio('slow', ['--call-delay', 'never']);
    const pending = client.callTool('echo', { message: 'never' }, { timeoutMs: 20_000 });
    // Concurrent and repeated closes share one shutdown.
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(resultText(await pending)).toBe(
      'server "slow", tool "echo": the connection was lost (closed by the client)',
    );
    expect(isAlive(transport.pid!)).toBe(false);
  });

  test('a connect that is still starting: close() wins and nothing is left', async ({ harness }) => {
    const { client, transport } = harness.stdioClient('slow', ['--initialize-delay', 'never']);
    const connecting = client.connect({ timeoutMs: 20_000 }).catch((e: unknown) => e);
    await client.close();
    expect(await connecting).toBeInstanceOf(Error);
    if (transport.pid !== undefined) expect(isAlive(transport.pid)).toBe(false);
  });
});

afterAll(() => {
  // Every stdio server this file started, whatever the test did, has exited.
  expect(liveChildCount()).toBe(0);
});
