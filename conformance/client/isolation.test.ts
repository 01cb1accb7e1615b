/**
 * Client fixture suite: several clients at once, some against broken servers. One server's crash, hang
 * or noise must not touch another client: the healthy ones complete every call. Over stdio and over
 * Streamable HTTP.
 */
import { describe, expect } from 'vitest';
import type { McpClient, ToolCallResult } from '../../src/mcp/client.js';
import { isAlive } from '../../test-servers/testing.js';
import { resultText, test } from './harness.test-helpers.js';

const ECHOES = 50;
const HUNG_TIMEOUT_MS = 1500;
/** Generous per-call budget: the healthy calls must not be what times out. */
const HEALTHY_TIMEOUT_MS = 20_000;

/** `ECHOES` echo calls one after another (so they span the other clients' failures); the texts back. */
async function echoMany(client: McpClient, label: string, tool = 'echo', key = 'message'): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < ECHOES; i += 1) {
    const result: ToolCallResult = await client.callTool(
      tool,
      { [key]: `${label} ${i}` },
      { timeoutMs: HEALTHY_TIMEOUT_MS },
    );
    texts.push(result.isError ? `error: ${resultText(result)}` : resultText(result));
  }
  return texts;
}

function expected(label: string): string[] {
  return Array.from({ length: ECHOES }, (_, i) => `${label} ${i}`);
}

describe('isolation over stdio', () => {
  test('one crashes, one hangs, one floods stdout; the two healthy clients complete every call', async ({
    harness,
  }) => {
    const FLOOD_LINES = 200;
    const [crasher, hanger, noisy, first, second] = await Promise.all([
      harness.connectStdio('crashing', ['--crash-at', 'call', '--after', '1']),
      harness.connectStdio('slow', ['--call-delay', 'never']),
      harness.connectStdio('noisy', ['--flood', '--flood-lines', String(FLOOD_LINES)]),
      harness.connectStdio('well-behaved', [], { name: 'healthy-1' }),
      harness.connectStdio('well-behaved', [], { name: 'healthy-2' }),
    ]);

    const crashCalls = (async () => {
      const ok = await crasher.client.callTool('echo', { message: 'before the crash' });
      const crashed = await crasher.client.callTool(
        'echo',
        { message: 'boom' },
        { timeoutMs: HEALTHY_TIMEOUT_MS },
      );
      return [ok, crashed];
    })();
    const [crash, hung, noisyTexts, firstTexts, secondTexts] = await Promise.all([
      crashCalls,
      hanger.client.callTool('echo', { message: 'never' }, { timeoutMs: HUNG_TIMEOUT_MS }),
      echoMany(noisy.client, 'noisy'),
      echoMany(first.client, 'first'),
      echoMany(second.client, 'second'),
    ]);

    expect(firstTexts).toEqual(expected('first'));
    expect(secondTexts).toEqual(expected('second'));
    expect(noisyTexts).toEqual(expected('noisy'));

    expect(crash[0]).toMatchObject({ isError: false });
    expect(resultText(crash[1]!)).toContain(
      'the connection was lost (the server process exited with code 1)',
    );
    expect(isAlive(crasher.transport.pid!)).toBe(false);
    expect(resultText(hung)).toBe(`server "slow", tool "echo": timed out after ${HUNG_TIMEOUT_MS} ms`);
    expect(hanger.client.isConnected).toBe(true);

    // The noise: every flood was counted (one before each of the 2 handshake and ECHOES call responses,
    // plus the banner), reported as a non-fatal error, and nothing else went wrong.
    const responses = 2 + ECHOES;
    expect(noisy.transport.noiseLineCount).toBeGreaterThanOrEqual((responses + 1) * FLOOD_LINES);
    expect(noisy.errors.length).toBe(noisy.transport.noiseLineCount);
    expect(noisy.errors.every((e) => e.message.includes('non-JSON line'))).toBe(true);
    expect(noisy.client.stats.invalidMessages).toBe(0);
    expect(noisy.closes).toEqual([]);

    // After everything, the survivors still answer; the healthy ones never saw a problem.
    for (const healthy of [first, second, noisy]) {
      expect(resultText(await healthy.client.callTool('echo', { message: 'still here' }))).toBe('still here');
      expect(healthy.client.isConnected).toBe(true);
    }
    for (const healthy of [first, second]) {
      expect(healthy.errors).toEqual([]);
      expect(healthy.client.stats.invalidMessages).toBe(0);
    }
  });
});

describe('isolation over Streamable HTTP', () => {
  test('one server hangs, one errors, one crashes; the healthy clients complete every call', async ({
    harness,
  }) => {
    const [hanging, erroring, crashing, jsonServer, sseServer] = await Promise.all([
      harness.httpServer('slow', ['--call-delay', 'never', '--reply', 'sse']),
      harness.httpServer('sse-erroring', ['--mode', 'http-500']),
      harness.httpServer('crashing', ['--crash-at', 'call']),
      harness.httpServer('well-behaved', ['--reply', 'json']),
      harness.httpServer('well-behaved', ['--reply', 'sse']),
    ]);
    const [hanger, errorer, crasher, first, second] = await Promise.all([
      harness.connectHttp(hanging.url, { name: 'hanging' }),
      harness.connectHttp(erroring.url, { name: 'erroring' }),
      harness.connectHttp(crashing.url, { name: 'crashing' }),
      harness.connectHttp(jsonServer.url, { name: 'healthy-json' }),
      harness.connectHttp(sseServer.url, { name: 'healthy-sse' }),
    ]);

    const [hung, failed, crashed, firstTexts, secondTexts] = await Promise.all([
      hanger.client.callTool('echo', { message: 'never' }, { timeoutMs: HUNG_TIMEOUT_MS }),
      errorer.client.callTool('trigger', {}, { timeoutMs: HEALTHY_TIMEOUT_MS }),
      crasher.client.callTool('echo', { message: 'boom' }, { timeoutMs: HEALTHY_TIMEOUT_MS }),
      echoMany(first.client, 'json'),
      echoMany(second.client, 'sse'),
    ]);

    expect(firstTexts).toEqual(expected('json'));
    expect(secondTexts).toEqual(expected('sse'));
    expect(resultText(hung)).toBe(`server "hanging", tool "echo": timed out after ${HUNG_TIMEOUT_MS} ms`);
    // One failed HTTP request is not a lost connection: the wording says so, and the session lives on.
    expect(resultText(failed)).toMatch(
      /^server "erroring", tool "trigger": the request failed \(.*HTTP 500.*deliberate failure/,
    );
    expect(resultText(await errorer.client.callTool('echo', { text: 'fine' }))).toBe('fine');
    expect(crashed.isError).toBe(true);
    expect(resultText(crashed)).toMatch(
      /^server "crashing", tool "echo": the request failed \(cannot reach MCP server/,
    );

    for (const healthy of [first, second]) {
      expect(resultText(await healthy.client.callTool('echo', { message: 'still here' }))).toBe('still here');
      expect(healthy.client.isConnected).toBe(true);
      expect(healthy.closes).toEqual([]);
    }
  });
});
