/**
 * Client fixture suite, stdio: servers that send garbage or a message over the size limit. Every case
 * ends in a clear error naming the server and the cause; nothing is thrown out of the client (an
 * unhandled rejection would fail the run). A broken handshake stops the process; a broken call leaves
 * the connection usable; an oversized message gets the server reported and stopped.
 */
import { describe, expect } from 'vitest';
import { McpConnectError } from '../../src/mcp/errors.js';
import { isAlive } from '../../test-servers/testing.js';
import { recordedMessages, resultText, test } from './harness.test-helpers.js';

/** Only the cases that cannot end otherwise (the answer never comes) wait for these. */
const CALL_TIMEOUT_MS = 1000;
/**
 * connect's budget includes spawning node, which a loaded machine can make slow; the server must have
 * answered (badly) well within it, or the assertions about that answer would race the start.
 */
const CONNECT_TIMEOUT_MS = 5000;
/** For cases that must fail by themselves: far above what they take. */
const GENEROUS_MS = 20_000;

interface CallCase {
  mode: string;
  timeoutMs: number;
  text: string;
}

const CALL_CASES: CallCase[] = [
  {
    mode: 'invalid-json',
    timeoutMs: CALL_TIMEOUT_MS,
    // The cut-off response is kept as stdout noise, and the message shows it.
    text: `timed out after ${CALL_TIMEOUT_MS} ms; 1 non-JSON line on stdout, last: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":`,
  },
  {
    mode: 'wrong-jsonrpc',
    timeoutMs: GENEROUS_MS,
    text: 'the server sent an invalid result (/jsonrpc: not a JSON-RPC 2.0 message)',
  },
  { mode: 'mismatched-id', timeoutMs: CALL_TIMEOUT_MS, text: `timed out after ${CALL_TIMEOUT_MS} ms` },
  {
    mode: 'schema-violation',
    timeoutMs: GENEROUS_MS,
    text: 'the server sent an invalid result (/result/content: must be array',
  },
];

describe.concurrent('garbage in answer to tools/call: a clear error, and the connection stays usable', () => {
  test.for(CALL_CASES)('$mode', async ({ mode, timeoutMs, text }, { harness }) => {
    const { client, errors, closes } = await harness.connectStdio('garbage', ['--mode', mode]);
    const result = await client.callTool('echo', { message: 'x' }, { timeoutMs });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain(`server "garbage", tool "echo": ${text}`);
    // The broken answer was noticed and reported (not thrown), and did not end the connection.
    if (mode === 'invalid-json') expect(errors.map((e) => e.message).join('\n')).toContain('non-JSON line');
    if (mode === 'mismatched-id') expect(client.stats.unknownResponses).toBe(1);
    if (mode === 'wrong-jsonrpc' || mode === 'schema-violation') expect(client.stats.invalidMessages).toBe(1);
    expect(closes).toEqual([]);
    expect(client.isConnected).toBe(true);
    expect(await client.listTools()).toContainEqual(expect.objectContaining({ name: 'echo' }));
  });
});

interface ConnectCase {
  mode: string;
  on: 'initialize' | 'tools/list';
  timeoutMs: number;
  text: string;
}

const CONNECT_CASES: ConnectCase[] = [
  {
    mode: 'invalid-json',
    on: 'initialize',
    timeoutMs: CONNECT_TIMEOUT_MS,
    text: '1 non-JSON line on stdout',
  },
  {
    mode: 'invalid-json',
    on: 'tools/list',
    timeoutMs: CONNECT_TIMEOUT_MS,
    text: '1 non-JSON line on stdout',
  },
  {
    mode: 'wrong-jsonrpc',
    on: 'initialize',
    timeoutMs: GENEROUS_MS,
    text: 'invalid response to "initialize" at /jsonrpc: not a JSON-RPC 2.0 message during initialize',
  },
  {
    mode: 'wrong-jsonrpc',
    on: 'tools/list',
    timeoutMs: GENEROUS_MS,
    text: 'invalid response to "tools/list" at /jsonrpc: not a JSON-RPC 2.0 message during tools/list',
  },
  { mode: 'mismatched-id', on: 'initialize', timeoutMs: CONNECT_TIMEOUT_MS, text: 'timed out after' },
  { mode: 'mismatched-id', on: 'tools/list', timeoutMs: CONNECT_TIMEOUT_MS, text: 'timed out after' },
  {
    mode: 'schema-violation',
    on: 'initialize',
    timeoutMs: GENEROUS_MS,
    text: 'the server answered protocol version 20250618, which furfly does not support',
  },
  {
    mode: 'schema-violation',
    on: 'tools/list',
    timeoutMs: GENEROUS_MS,
    text: 'invalid response to "tools/list" at /result/tools/0/name: must be string',
  },
];

describe.concurrent('garbage during the handshake: connect fails clearly and the process is stopped', () => {
  test.for(CONNECT_CASES)('$mode on $on', async ({ mode, on, timeoutMs, text }, { harness }) => {
    const record = harness.recordFile();
    const { client, transport, errors } = harness.stdioClient('garbage', [
      '--mode',
      mode,
      '--on',
      on,
      '--record',
      record,
    ]);
    const error = await client.connect({ timeoutMs }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toMatch(/^server "garbage": /);
    expect((error as Error).message).toContain(text);
    // The server did get the request whose answer was broken (so the error is about that answer).
    expect(recordedMessages(record).map((m) => m.method)).toContain(on);
    if (mode === 'mismatched-id') expect(errors.map((e) => e.message).join('\n')).toContain('unknown id');
    if (timeoutMs === GENEROUS_MS) expect(error).toMatchObject({ phase: on });
    expect(client.isConnected).toBe(false);
    expect(isAlive(transport.pid!)).toBe(false);
  });
});

describe('oversized', () => {
  test('a message over the limit: the server is reported and stopped, the call fails naming the limit', async ({
    harness,
  }) => {
    const { client, transport, errors, closes } = await harness.connectStdio('oversized');
    const result = await client.callTool('echo', { message: 'x' }, { timeoutMs: GENEROUS_MS });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /^server "oversized", tool "echo": the connection was lost \(stopped: a message from the server exceeded the limit of 16777216 bytes \(at least \d+ bytes\)\)/,
    );
    expect(errors.map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /^server "oversized": a message from the server exceeded the limit of 16777216 bytes .*; stopping it$/,
      ),
    );
    expect(closes).toHaveLength(1);
    expect(closes[0]?.message).toMatch(/^stopped: /);
    expect(isAlive(transport.pid!)).toBe(false);
    expect(client.isConnected).toBe(false);
  });
});
