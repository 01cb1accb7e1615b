/**
 * The test servers in the 2026-07-28 era over Streamable HTTP, at wire level: no sessions, headers
 * checked against the body, modern errors with their HTTP status, MRTR and subscriptions/listen, the
 * dual era on one endpoint, and the HTTP-only spec-breaker switches (#15).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  initializeParams,
  type Json,
  MODERN_VERSION,
  modernParams,
  postModern,
  sseMessages,
  startHttpServer,
  stopAllServers,
} from './testing.js';

afterEach(stopAllServers);

const ELICITATION = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const call = (id: number, name: string, args: Json, meta: Json = {}) => ({
  id,
  method: 'tools/call',
  params: modernParams({ name, arguments: args }, meta),
});

describe('well-behaved --era modern --http', () => {
  it('serves discover and tools without a session; GET and DELETE get 405', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'modern']);
    const discover = await postModern(url, { id: 1, method: 'server/discover', params: modernParams() });
    expect(discover.status).toBe(200);
    expect(discover.headers.get('mcp-session-id')).toBeNull();
    expect(discover.messages[0].result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN_VERSION],
      cacheScope: 'public',
    });
    const echo = await postModern(url, call(2, 'echo', { message: 'hi' }), { 'mcp-session-id': 'ignored' });
    expect(echo.status).toBe(200);
    expect(echo.headers.get('mcp-session-id')).toBeNull();
    expect(echo.messages[0].result.content).toEqual([{ type: 'text', text: 'hi' }]);

    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
      await response.text();
    }
  });

  it('rejects headers that contradict the body with 400 and -32020', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'modern']);
    const body = call(1, 'echo', { message: 'x' });
    const cases: Record<string, string | undefined>[] = [
      { 'mcp-method': 'tools/list' },
      { 'mcp-method': undefined },
      { 'mcp-name': 'add' },
      { 'mcp-name': undefined },
      { 'mcp-protocol-version': '2025-11-25' },
      { 'mcp-protocol-version': undefined },
      { 'mcp-name': '=?base64?not base64?=' },
    ];
    for (const headers of cases) {
      const answer = await postModern(url, body, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(answer.messages[0].error.code, JSON.stringify(headers)).toBe(-32020);
      expect(answer.messages[0].id).toBe(1);
    }
    // The Base64 sentinel is decoded before comparing.
    const encoded = await postModern(url, body, {
      'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
    });
    expect(encoded.status).toBe(200);
    const uri = 'furfly://test/readme';
    const read = await postModern(url, { id: 2, method: 'resources/read', params: modernParams({ uri }) });
    expect(read.status).toBe(200);
    const wrongUri = await postModern(
      url,
      { id: 3, method: 'resources/read', params: modernParams({ uri }) },
      { 'mcp-name': 'furfly://test/config.json' },
    );
    expect(wrongUri.status).toBe(400);
  });

  it('checks Mcp-Param-Region of the x-mcp-header tool, decoding Base64 values', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'modern']);
    const plain = call(1, 'regional_echo', { region: 'us-west1', message: 'hi' });
    const ok = await postModern(url, plain, { 'mcp-param-region': 'us-west1' });
    expect(ok.status).toBe(200);
    expect(ok.messages[0].result.content[0].text).toBe('us-west1: hi');
    for (const header of ['eu-north1', undefined]) {
      const answer = await postModern(url, plain, { 'mcp-param-region': header });
      expect(answer.status, String(header)).toBe(400);
      expect(answer.messages[0].error.code).toBe(-32020);
    }
    const region = ' Zürich ';
    const encoded = `=?base64?${Buffer.from(region, 'utf8').toString('base64')}?=`;
    const unicode = await postModern(url, call(2, 'regional_echo', { region, message: 'hi' }), {
      'mcp-param-region': encoded,
    });
    expect(unicode.status).toBe(200);
  });

  it('gives modern errors their status: 400 for -32022/-32021/malformed _meta, 404 for unknown methods', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'modern']);
    const unsupported = await postModern(url, {
      id: 1,
      method: 'tools/list',
      params: modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    });
    expect(unsupported.status).toBe(400);
    expect(unsupported.messages[0].error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN_VERSION] },
    });

    const initialize = await postModern(url, { id: 2, method: 'initialize', params: initializeParams() });
    expect(initialize.status).toBe(400);
    expect(initialize.messages[0].error.data.supported).toEqual([MODERN_VERSION]);

    const noCapability = await postModern(url, call(3, 'ask_name', {}));
    expect(noCapability.status).toBe(400);
    expect(noCapability.messages[0].error.code).toBe(-32021);

    const malformed = await postModern(url, {
      id: 4,
      method: 'tools/list',
      params: modernParams({}, { 'io.modelcontextprotocol/clientCapabilities': undefined }),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.messages[0].error.code).toBe(-32602);

    const unknown = await postModern(url, { id: 5, method: 'furfly/nothing', params: modernParams() });
    expect(unknown.status).toBe(404);
    expect(unknown.messages[0].error.code).toBe(-32601);

    // A tool-level or argument error is an ordinary JSON-RPC answer.
    const notFound = await postModern(url, {
      id: 6,
      method: 'resources/read',
      params: modernParams({ uri: 'furfly://test/none' }),
    });
    expect(notFound.status).toBe(200);
    expect(notFound.messages[0].error.code).toBe(-32602);
  });

  it('runs the MRTR round trip over HTTP', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'modern']);
    const first = await postModern(url, call(1, 'ask_name', {}, ELICITATION));
    const result = first.messages[0].result;
    expect(result.resultType).toBe('input_required');
    const key = Object.keys(result.inputRequests)[0]!;
    const retry = await postModern(url, {
      id: 2,
      method: 'tools/call',
      params: modernParams(
        {
          name: 'ask_name',
          arguments: {},
          inputResponses: { [key]: { action: 'accept', content: { name: 'Grace' } } },
          requestState: result.requestState,
        },
        ELICITATION,
      ),
    });
    expect(retry.messages[0].result.content[0].text).toBe('Hello, Grace!');
    const forged = await postModern(url, {
      id: 3,
      method: 'tools/call',
      params: modernParams(
        { name: 'ask_name', arguments: {}, requestState: `${result.requestState}x` },
        ELICITATION,
      ),
    });
    expect(forged.messages[0].error.code).toBe(-32602);
  });

  it('streams progress on the request itself (--reply sse) and answers subscriptions/listen as SSE', async () => {
    const { url } = await startHttpServer('well-behaved', [
      '--era',
      'modern',
      '--reply',
      'sse',
      '--list-changed-after',
      '50',
    ]);
    const progress = await postModern(
      url,
      call(1, 'progress', { steps: 2, interval_ms: 1 }, { progressToken: 7 }),
    );
    expect(progress.headers.get('content-type')).toContain('text/event-stream');
    expect(progress.messages.map((message) => message.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);

    const controller = new AbortController();
    const body = {
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: modernParams({ notifications: { toolsListChanged: true } }),
    };
    const response = await fetch(url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (sseMessages(text).length < 2) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    const [ack, changed] = sseMessages(text);
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');
    expect(changed.method).toBe('notifications/tools/list_changed');
    expect(changed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');
    controller.abort();
    await reader.cancel().catch(() => {});
    // Closing the stream cancelled the subscription; the server serves on.
    const after = await postModern(url, { id: 2, method: 'server/discover', params: modernParams() });
    expect(after.status).toBe(200);
  });
});

describe('well-behaved --era dual --http', () => {
  it('serves legacy sessions and modern requests on one endpoint', async () => {
    const { url } = await startHttpServer('well-behaved', ['--era', 'dual']);
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() }),
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    expect(((await init.json()) as Json).result.protocolVersion).toBe('2025-11-25');
    const legacyList = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const legacy = (await legacyList.json()) as Json;
    expect(legacy.result).not.toHaveProperty('resultType');

    const modern = await postModern(url, { id: 3, method: 'tools/list', params: modernParams() });
    expect(modern.status).toBe(200);
    expect(modern.messages[0].result.resultType).toBe('complete');
    expect(modern.headers.get('mcp-session-id')).toBeNull();

    // Neither a session nor _meta: the modern -32022 with every version, which a dual-era client reads.
    const bare = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }),
    });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as Json).error.data.supported).toContain('2025-11-25');
  });
});

describe('spec-breaker HTTP-only modern switches', () => {
  it('header-mismatch-accepted: contradicting headers are served, unknown methods still 404', async () => {
    const { url } = await startHttpServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'header-mismatch-accepted',
    ]);
    const mismatch = await postModern(url, call(1, 'echo', { message: 'x' }), {
      'mcp-method': 'tools/list',
      'mcp-name': 'add',
    });
    expect(mismatch.status).toBe(200);
    expect(mismatch.messages[0].result.content[0].text).toBe('x');
    const unknown = await postModern(url, { id: 2, method: 'furfly/nothing', params: modernParams() });
    expect(unknown.status).toBe(404);
  });

  it('unknown-method-not-404: an unknown method gets 200, header checks still hold', async () => {
    const { url } = await startHttpServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'unknown-method-not-404',
    ]);
    const unknown = await postModern(url, { id: 1, method: 'furfly/nothing', params: modernParams() });
    expect(unknown.status).toBe(200);
    expect(unknown.messages[0].error.code).toBe(-32601);
    const mismatch = await postModern(url, call(2, 'echo', { message: 'x' }), { 'mcp-method': 'tools/list' });
    expect(mismatch.status).toBe(400);
  });

  it('server-requests: over HTTP the request goes out on an SSE reply even in JSON mode', async () => {
    const { url } = await startHttpServer('spec-breaker', ['--era', 'modern', '--break', 'server-requests']);
    const answer = await postModern(url, call(1, 'ask_name', {}, ELICITATION));
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const request = answer.messages.find((message) => message.method === 'elicitation/create');
    expect(request?.id).toBeDefined();
    expect(answer.messages.at(-1).result.resultType).toBe('complete');
  });

  it('wrong-version-error keeps the 400 but not the -32022', async () => {
    const { url } = await startHttpServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'wrong-version-error',
    ]);
    const answer = await postModern(url, {
      id: 1,
      method: 'tools/list',
      params: modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.messages[0].error.code).toBe(-32602);
    expect(answer.messages[0].error.data).toBeUndefined();
  });
  it('get-delete-not-405: GET opens an event stream and DELETE gets 204', async () => {
    const { url } = await startHttpServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'get-delete-not-405',
    ]);
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(200);
    await get.text();
    const remove = await fetch(url, { method: 'DELETE' });
    expect(remove.status).toBe(204);
    const discover = await postModern(url, { id: 1, method: 'server/discover', params: modernParams() });
    expect(discover.headers.get('mcp-session-id')).toBeNull();
  });

  it('modern-session-id: modern answers carry Mcp-Session-Id, GET stays 405', async () => {
    const { url } = await startHttpServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'modern-session-id',
    ]);
    const discover = await postModern(url, { id: 1, method: 'server/discover', params: modernParams() });
    expect(discover.status).toBe(200);
    expect(discover.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    await get.text();
  });
});
