/**
 * Client fixture suite, stdio: hung servers fail with timeout errors (and the server hears
 * `notifications/cancelled`), and a server that crashes mid-call fails the pending call at once, with
 * the exit code and the stderr message, long before its timeout.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect } from 'vitest';
import { McpConnectError } from '../../src/mcp/errors.js';
import { waitFor } from '../../src/util/wait-for.test-helpers.js';
import { isAlive } from '../../test-servers/testing.js';
import { recordedMessages, resultText, test } from './harness.test-helpers.js';

/** Short on purpose: these cases can only end by timing out. */
const HUNG_TIMEOUT_MS = 1000;
/**
 * connect's budget includes spawning node, which a loaded machine can make slow; the server must have
 * reached the hung request well within it, or the phase in the error would race the start.
 */
const HUNG_CONNECT_MS = 12_000;

describe.concurrent('a hung server fails with a timeout error', () => {
  test('initialize never answered: connect fails in phase initialize and the process is stopped', async ({
    harness,
  }) => {
    const record = harness.recordFile();
    const { client, transport } = harness.stdioClient('slow', [
      '--initialize-delay',
      'never',
      '--record',
      record,
    ]);
    const error = await client.connect({ timeoutMs: HUNG_CONNECT_MS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect(error).toMatchObject({ phase: 'initialize' });
    expect((error as Error).message).toContain(
      `server "slow": timed out after ${HUNG_CONNECT_MS} ms during initialize`,
    );
    expect(recordedMessages(record).map((m) => m.method)).toContain('initialize');
    expect(isAlive(transport.pid!)).toBe(false);
  });

  test('tools/list never answered: connect fails in phase tools/list', async ({ harness }) => {
    const { client } = harness.stdioClient('slow', ['--list-delay', 'never']);
    const error = await client.connect({ timeoutMs: HUNG_CONNECT_MS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect(error).toMatchObject({ phase: 'tools/list' });
    expect((error as Error).message).toContain(`timed out after ${HUNG_CONNECT_MS} ms during tools/list`);
  });

  test('a call never answered times out, the server receives notifications/cancelled for it, and the connection stays usable', async ({
    harness,
  }) => {
    const record = harness.recordFile();
    const { client, closes } = await harness.connectStdio('slow', [
      '--call-delay',
      'never',
      '--record',
      record,
    ]);
    const result = await client.callTool('echo', { message: 'never' }, { timeoutMs: HUNG_TIMEOUT_MS });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(`server "slow", tool "echo": timed out after ${HUNG_TIMEOUT_MS} ms`);

    const call = recordedMessages(record).find((m) => m.method === 'tools/call');
    expect(call?.id).toBeDefined();
    const cancelledFor = () =>
      recordedMessages(record).some(
        (m) => m.method === 'notifications/cancelled' && m.params?.requestId === call?.id,
      );
    await waitFor('notifications/cancelled for the request', cancelledFor);

    // Only tools/call is delayed: the same connection still answers other requests.
    await expect(client.listTools()).resolves.toContainEqual(expect.objectContaining({ name: 'echo' }));
    expect(client.isConnected).toBe(true);
    expect(closes).toEqual([]);
  });
});

/** The call's own timeout; the crash must end it long before (a logical bound, not a speed claim). */
const CALL_TIMEOUT_MS = 20_000;

describe.concurrent('a server that crashes', () => {
  test('mid-call: the pending call fails promptly with the exit code and the stderr message', async ({
    harness,
  }) => {
    const { client, transport, closes } = await harness.connectStdio('crashing', [
      '--crash-at',
      'call',
      '--exit-code',
      '3',
      '--stderr',
      'crashing: the disk is on fire',
    ]);
    const started = performance.now();
    const result = await client.callTool('echo', { message: 'boom' }, { timeoutMs: CALL_TIMEOUT_MS });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(CALL_TIMEOUT_MS / 2);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      'server "crashing", tool "echo": the connection was lost (the server process exited with code 3); ' +
        'stderr: crashing: the disk is on fire',
    );
    expect(closes).toEqual([{ message: 'the server process exited with code 3', code: 3, signal: null }]);
    expect(isAlive(transport.pid!)).toBe(false);
    // Later calls fail at once too, and still say why.
    const later = await client.callTool('echo', { message: 'again' });
    expect(resultText(later)).toContain('is not connected: the server process exited with code 3');
  });

  test('during the handshake: connect fails naming the exit code and the stderr message', async ({
    harness,
  }) => {
    const { client } = harness.stdioClient('crashing', ['--crash-at', 'handshake', '--exit-code', '7']);
    const error = await client.connect({ timeoutMs: CALL_TIMEOUT_MS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect(error).toMatchObject({ phase: 'initialize' });
    expect((error as Error).message).toBe(
      'server "crashing": the server process exited with code 7 during initialize; ' +
        'stderr: crashing: simulated crash (handshake, after 0 calls)',
    );
  });

  test('after N calls: the first N succeed, then every call fails naming the exit', async ({ harness }) => {
    const { client, closes } = await harness.connectStdio('crashing', [
      '--crash-at',
      'after-calls',
      '--after',
      '2',
    ]);
    expect(resultText(await client.callTool('echo', { message: 'one' }))).toBe('one');
    expect(resultText(await client.callTool('echo', { message: 'two' }))).toBe('two');
    await waitFor('the close', () => closes.length === 1);
    const third = await client.callTool('echo', { message: 'three' });
    expect(third.isError).toBe(true);
    expect(resultText(third)).toContain('the server process exited with code 1');
  });
});
