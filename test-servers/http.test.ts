import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { initializeParams, sseMessages, startHttpServer, stopAllServers } from './testing.js';

const dir = mkdtempSync(join(tmpdir(), 'furfly-ts-http-'));
afterEach(stopAllServers);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ACCEPT = 'application/json, text/event-stream';

function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Initializes a session and returns its id. */
async function openSession(url: string, version = '2025-11-25'): Promise<string> {
  const response = await post(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: initializeParams(version as never),
  });
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
  await response.text();
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId!, 'mcp-protocol-version': version },
  );
  expect(initialized.status).toBe(202);
  expect(await initialized.text()).toBe('');
  return sessionId!;
}

describe('well-behaved --http', () => {
  it('runs a session: JSON replies, 202 for notifications, 400/404 session rules, DELETE', async () => {
    const record = join(dir, 'session.jsonl');
    const { url } = await startHttpServer('well-behaved', ['--record', record]);
    const sessionId = await openSession(url);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };

    const call = await post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
      headers,
    );
    expect(call.headers.get('content-type')).toContain('application/json');
    expect(await call.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });

    expect((await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(400);
    expect(
      (await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': 'nope' })).status,
    ).toBe(404);

    const deleted = await fetch(url, { method: 'DELETE', headers });
    expect(deleted.status).toBe(204);
    expect((await post(url, { jsonrpc: '2.0', id: 4, method: 'ping' }, headers)).status).toBe(404);

    const http = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.kind === 'http');
    expect(http.map((entry) => [entry.method, entry.sessionId !== null, entry.protocolVersion])).toEqual([
      ['POST', false, null],
      ['POST', true, '2025-11-25'],
      ['POST', true, '2025-11-25'],
      ['POST', false, null],
      ['POST', true, null],
      ['DELETE', true, '2025-11-25'],
      ['POST', true, '2025-11-25'],
    ]);
  });

  it('rejects a foreign Origin with 403 and accepts localhost ones', async () => {
    const { url } = await startHttpServer('well-behaved');
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() };
    expect((await post(url, init, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(url, init, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await post(url, init, { origin: 'http://127.0.0.1' })).status).toBe(200);
  });

  it('rejects an unsupported MCP-Protocol-Version with 400', async () => {
    const { url } = await startHttpServer('well-behaved');
    const sessionId = await openSession(url);
    const response = await post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '1999-01-01',
      },
    );
    expect(response.status).toBe(400);
  });

  it('answers malformed JSON with 400 and -32700', async () => {
    const { url } = await startHttpServer('well-behaved');
    const response = await post(url, '{oops');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('streams progress before the response with --reply sse', async () => {
    const { url } = await startHttpServer('well-behaved', ['--reply', 'sse']);
    const sessionId = await openSession(url);
    const response = await post(
      url,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'progress', arguments: { steps: 2, interval_ms: 1 }, _meta: { progressToken: 7 } },
      },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const body = await response.text();
    expect(body.startsWith(`id: ${sessionId}-`)).toBe(true); // the 2025-11-25 priming event
    const messages = sseMessages(body) as { method?: string; id?: number }[];
    expect(messages.map((message) => message.method ?? `response ${message.id}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response 2',
    ]);
  });

  it('sends server notifications on the GET stream, or answers GET with 405', async () => {
    const { url } = await startHttpServer('well-behaved', ['--list-changed-after', '0']);
    const sessionId = await openSession(url, '2025-06-18');
    const controller = new AbortController();
    const stream = await fetch(url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('notifications/tools/list_changed');
    controller.abort();

    const noGet = await startHttpServer('well-behaved', ['--no-get-stream']);
    const other = await openSession(noGet.url);
    const refused = await fetch(noGet.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': other },
    });
    expect(refused.status).toBe(405);
  });
});

describe('slow --http', () => {
  it('delays the call it was told to', async () => {
    const { url } = await startHttpServer('slow', ['--call-delay', 'never']);
    const sessionId = await openSession(url);
    const controller = new AbortController();
    const pending = post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } },
      { 'mcp-session-id': sessionId },
      controller.signal,
    );
    const settled = pending.then(
      () => 'answered',
      () => 'aborted',
    );
    const outcome = await Promise.race([
      pending.then(() => 'answered'),
      new Promise((r) => setTimeout(r, 300, 'pending')),
    ]);
    expect(outcome).toBe('pending');
    controller.abort();
    expect(await settled).toBe('aborted');
    const ping = await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': sessionId });
    expect(await ping.json()).toMatchObject({ id: 3, result: {} });
  });
});
