/**
 * The test servers in the 2026-07-28 era over stdio, at wire level: `--era modern` and `--era dual` of
 * the well-behaved server, and every modern spec-breaker switch breaking its one duty (#15).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Json, MODERN_VERSION, modernParams, startStdioServer, stopAllServers } from './testing.js';

afterEach(stopAllServers);

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ELICITATION = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

describe('well-behaved --era modern over stdio', () => {
  it('answers server/discover with versions, capabilities, serverInfo and cache hints', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const { result } = await server.request(1, 'server/discover', modernParams());
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN_VERSION],
      capabilities: { tools: { listChanged: true } },
      ttlMs: expect.any(Number),
      cacheScope: 'public',
    });
    expect(result._meta[SERVER_INFO]).toEqual({ name: 'furfly-test-well-behaved', version: '1.0.0' });
  });

  it('puts resultType on every result and cache hints on exactly the cacheable ones', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const cacheable = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
    let id = 1;
    for (const method of cacheable) {
      const { result } = await server.request(id++, method, modernParams());
      expect(result, method).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
      expect(result.ttlMs, method).toBeGreaterThanOrEqual(0);
    }
    const read = await server.request(id++, 'resources/read', modernParams({ uri: 'furfly://test/readme' }));
    expect(read.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    const prompt = await server.request(id++, 'prompts/get', modernParams({ name: 'summary' }));
    expect(prompt.result.resultType).toBe('complete');
    expect(prompt.result).not.toHaveProperty('ttlMs');
    const call = await server.request(
      id++,
      'tools/call',
      modernParams({ name: 'add', arguments: { a: 2, b: 3 } }),
    );
    expect(call.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '5' }] });
    expect(call.result._meta[SERVER_INFO].name).toBe('furfly-test-well-behaved');
    expect(call.result).not.toHaveProperty('cacheScope');
  });

  it('lists the modern-only tools: ask_name (MRTR) and regional_echo (x-mcp-header)', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const { result } = await server.request(1, 'tools/list', modernParams());
    const byName = new Map(result.tools.map((tool: Json) => [tool.name, tool]));
    expect(byName.has('ask_name')).toBe(true);
    expect((byName.get('regional_echo') as Json).inputSchema.properties.region['x-mcp-header']).toBe(
      'Region',
    );
  });

  it('answers a missing version (or _meta) with -32602, an unsupported one with -32022 and data.supported', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const missing = await server.request(1, 'tools/list', {
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(missing.error.code).toBe(-32602);
    const noParams = await server.request(2, 'tools/list');
    expect(noParams.error.code).toBe(-32602);
    const unsupported = await server.request(
      3,
      'tools/list',
      modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    );
    expect(unsupported.error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN_VERSION], requested: '1900-01-01' },
    });
    // A legacy client's initialize learns which versions the server speaks.
    const initialize = await server.request(4, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(initialize.error.code).toBe(-32022);
    expect(initialize.error.data).toEqual({ supported: [MODERN_VERSION], requested: '2025-11-25' });
    expect(initialize.error.message).toContain(MODERN_VERSION);
  });

  it('rejects a request without clientCapabilities as malformed (-32602)', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const response = await server.request(
      1,
      'tools/list',
      modernParams({}, { 'io.modelcontextprotocol/clientCapabilities': undefined }),
    );
    expect(response.error.code).toBe(-32602);
  });

  it('answers unknown methods (and the removed ping) with -32601, an unknown resource with -32602', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    expect((await server.request(1, 'furfly/nothing', modernParams())).error.code).toBe(-32601);
    expect((await server.request(2, 'ping', modernParams())).error.code).toBe(-32601);
    const read = await server.request(3, 'resources/read', modernParams({ uri: 'furfly://test/none' }));
    expect(read.error.code).toBe(-32602);
  });

  it('runs the MRTR round trip of ask_name and refuses tampered or foreign requestState', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    const noCapability = await server.request(
      1,
      'tools/call',
      modernParams({ name: 'ask_name', arguments: {} }),
    );
    expect(noCapability.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });

    const first = await server.request(
      2,
      'tools/call',
      modernParams({ name: 'ask_name', arguments: { greeting: 'Hi' } }, ELICITATION),
    );
    expect(first.result.resultType).toBe('input_required');
    expect(first.result).not.toHaveProperty('ttlMs');
    const [key, inputRequest] = Object.entries(first.result.inputRequests)[0] as [string, Json];
    expect(inputRequest.method).toBe('elicitation/create');
    expect(inputRequest.params.mode).toBe('form');
    const state: string = first.result.requestState;
    expect(typeof state).toBe('string');

    const retry = (id: number, requestState: string, args: Json = { greeting: 'Hi' }) =>
      server.request(
        id,
        'tools/call',
        modernParams(
          {
            name: 'ask_name',
            arguments: args,
            inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
            requestState,
          },
          ELICITATION,
        ),
      );
    const done = await retry(3, state);
    expect(done.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hi, Ada!' }],
    });

    // One character changed in the signed payload: the MAC no longer fits.
    const flipped = `${state[0] === 'A' ? 'B' : 'A'}${state.slice(1)}`;
    const tampered = await retry(4, flipped);
    expect(tampered.error.code).toBe(-32602);
    expect(tampered.error.message).toMatch(/requestState/);
    // Genuine state, but issued for other arguments.
    const foreign = await retry(5, state, { greeting: 'Bye' });
    expect(foreign.error.code).toBe(-32602);
  });

  it('acknowledges subscriptions/listen, tags its notifications and stops on cancel', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern', '--list-changed-after', '50']);
    server.send({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: modernParams({ notifications: { toolsListChanged: true, promptsListChanged: true } }),
    });
    const ack = await server.nextMessage();
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 'sub-1' }, notifications: { toolsListChanged: true } },
    });
    const changed = await server.nextMessage();
    expect(changed.method).toBe('notifications/tools/list_changed');
    expect(changed.params._meta[SUBSCRIPTION_ID]).toBe('sub-1');

    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-1' } });
    // The listen request is never answered once cancelled; the next response is for the next request.
    const after = await server.request(9, 'tools/list', modernParams());
    expect(after.result.resultType).toBe('complete');
    expect(server.received.filter((message) => message.id === 'sub-1')).toEqual([]);
  });

  it('logs only for a request that asked for a level, on progress sends to the request itself', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    await server.request(1, 'tools/call', modernParams({ name: 'echo', arguments: { message: 'quiet' } }));
    expect(server.received.filter((message) => message.method === 'notifications/message')).toEqual([]);

    await server.request(
      2,
      'tools/call',
      modernParams(
        { name: 'echo', arguments: { message: 'loud' } },
        { 'io.modelcontextprotocol/logLevel': 'debug' },
      ),
    );
    const logs = server.received.filter((message) => message.method === 'notifications/message');
    expect(logs).toHaveLength(1);
    expect(logs[0].params.level).toBe('info');

    // A threshold above info silences it.
    server.received.length = 0;
    await server.request(
      3,
      'tools/call',
      modernParams(
        { name: 'echo', arguments: { message: 'x' } },
        { 'io.modelcontextprotocol/logLevel': 'error' },
      ),
    );
    expect(server.received.filter((message) => message.method === 'notifications/message')).toEqual([]);

    const params = modernParams(
      { name: 'progress', arguments: { steps: 2, interval_ms: 1 } },
      { progressToken: 'p' },
    );
    const done = await server.request(4, 'tools/call', params);
    expect(done.result.resultType).toBe('complete');
    const progress = server.received.filter((message) => message.method === 'notifications/progress');
    expect(progress.map((message) => message.params.progress)).toEqual([1, 2]);
    expect(progress.every((message) => message.params.progressToken === 'p')).toBe(true);
  });
});

describe('well-behaved --era dual over stdio', () => {
  it('serves initialize the legacy way and modern requests on the same process', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'dual']);
    const discover = await server.request(1, 'server/discover', modernParams());
    expect(discover.result.supportedVersions).toEqual([
      MODERN_VERSION,
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
    ]);

    const init = await server.initialize('2025-11-25');
    expect(init.protocolVersion).toBe('2025-11-25');
    const legacyList = await server.request(2, 'tools/list');
    expect(legacyList.result).not.toHaveProperty('resultType');
    const legacyNames = legacyList.result.tools.map((tool: Json) => tool.name);
    expect(legacyNames).not.toContain('ask_name');

    const modernList = await server.request(3, 'tools/list', modernParams());
    expect(modernList.result.resultType).toBe('complete');
    expect(modernList.result.tools.map((tool: Json) => tool.name)).toContain('ask_name');
  });

  it('answers a request without _meta before initialize with -32022 naming every version', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'dual']);
    const response = await server.request(1, 'tools/list');
    expect(response.error.code).toBe(-32022);
    expect(response.error.data.supported).toContain('2025-11-25');
    // ping stays a legacy request that works before initialize.
    expect((await server.request(2, 'ping')).result).toEqual({});
  });
});

describe('well-behaved, default era', () => {
  it('stays legacy: server/discover before initialize is no modern answer', async () => {
    const server = startStdioServer('well-behaved');
    const response = await server.request(1, 'server/discover', modernParams());
    expect(response.error.code).not.toBe(-32022);
    expect(response).not.toHaveProperty('result');
  });
});

describe('spec-breaker modern switches over stdio', () => {
  it('refuses a modern switch without a modern era (usage error, exit 2)', async () => {
    const server = startStdioServer('spec-breaker', ['--break', 'no-discover']);
    expect((await server.exited).code).toBe(2);
    expect(server.stderr()).toContain('--era modern');
  });

  const start = (defect: string) => startStdioServer('spec-breaker', ['--era', 'modern', '--break', defect]);

  it('no-discover: server/discover is -32601, everything else is modern as usual', async () => {
    const server = start('no-discover');
    expect((await server.request(1, 'server/discover', modernParams())).error.code).toBe(-32601);
    const list = await server.request(2, 'tools/list', modernParams());
    expect(list.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
  });

  it('no-result-type: results lack resultType, cache hints stay', async () => {
    const server = start('no-result-type');
    const list = await server.request(1, 'tools/list', modernParams());
    expect(list.result).not.toHaveProperty('resultType');
    expect(list.result.ttlMs).toBeGreaterThanOrEqual(0);
    const discover = await server.request(2, 'server/discover', modernParams());
    expect(discover.result).not.toHaveProperty('resultType');
    expect(discover.result.supportedVersions).toEqual([MODERN_VERSION]);
  });

  it('no-cache-fields: cacheable results lack ttlMs and cacheScope, resultType stays', async () => {
    const server = start('no-cache-fields');
    for (const [id, method] of [
      [1, 'server/discover'],
      [2, 'tools/list'],
      [3, 'resources/list'],
    ] as const) {
      const { result } = await server.request(id, method, modernParams());
      expect(result.resultType, method).toBe('complete');
      expect(result, method).not.toHaveProperty('ttlMs');
      expect(result, method).not.toHaveProperty('cacheScope');
    }
  });

  it('wrong-version-error: an unsupported version gets -32602 without data.supported', async () => {
    const server = start('wrong-version-error');
    const bad = await server.request(
      1,
      'tools/list',
      modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    );
    expect(bad.error.code).toBe(-32602);
    expect(bad.error).not.toHaveProperty('data');
    expect((await server.request(2, 'tools/list', modernParams())).result.resultType).toBe('complete');
  });

  it('ignored-version: a request naming an unsupported version is served', async () => {
    const server = start('ignored-version');
    const served = await server.request(
      1,
      'tools/list',
      modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    );
    expect(served.result.resultType).toBe('complete');
    // Still modern otherwise: discover names only 2026-07-28.
    expect((await server.request(2, 'server/discover', modernParams())).result.supportedVersions).toEqual([
      MODERN_VERSION,
    ]);
  });

  it('server-requests: ask_name sends elicitation/create as a request instead of MRTR', async () => {
    const server = start('server-requests');
    const call = await server.request(
      1,
      'tools/call',
      modernParams({ name: 'ask_name', arguments: {} }, ELICITATION),
    );
    expect(call.result.resultType).toBe('complete');
    const request = server.received.find((message) => message.method === 'elicitation/create');
    expect(request).toBeDefined();
    expect(request.id).toBeDefined();
  });

  it('the well-behaved server sends no request for the same call', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern']);
    await server.request(1, 'tools/call', modernParams({ name: 'ask_name', arguments: {} }, ELICITATION));
    expect(server.received.filter((message) => 'method' in message && 'id' in message)).toEqual([]);
  });
  it('missing-meta-32022: a request without _meta or its version gets -32022, not -32602', async () => {
    const server = start('missing-meta-32022');
    const noParams = await server.request(1, 'tools/list');
    expect(noParams.error.code).toBe(-32022);
    const served = await server.request(2, 'tools/list', modernParams());
    expect(served.result.resultType).toBe('complete');
  });

  it('version-error-no-supported: -32022 without data.supported', async () => {
    const server = start('version-error-no-supported');
    const bad = await server.request(
      1,
      'tools/list',
      modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
    );
    expect(bad.error.code).toBe(-32022);
    expect(bad.error.data).toEqual({ requested: '1900-01-01' });
  });

  it('not-found-32002: an unknown resource gets -32002, a known one is read', async () => {
    const server = start('not-found-32002');
    const missing = await server.request(1, 'resources/read', modernParams({ uri: 'furfly://test/none' }));
    expect(missing.error.code).toBe(-32002);
    const found = await server.request(2, 'resources/read', modernParams({ uri: 'furfly://test/readme' }));
    expect(found.result.resultType).toBe('complete');
  });

  it('log-without-level: a call without logLevel still logs', async () => {
    const server = start('log-without-level');
    await server.request(1, 'tools/call', modernParams({ name: 'echo', arguments: { message: 'x' } }));
    expect(server.received.filter((message) => message.method === 'notifications/message')).toHaveLength(1);
  });

  it('no-subscription-id: the acknowledgement and the change lack the subscription id', async () => {
    const server = startStdioServer('spec-breaker', [
      '--era',
      'modern',
      '--break',
      'no-subscription-id',
      '--list-changed-after',
      '20',
    ]);
    server.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'subscriptions/listen',
      params: modernParams({ notifications: { toolsListChanged: true } }),
    });
    const ack = await server.nextMessage();
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params.notifications).toEqual({ toolsListChanged: true });
    expect(ack.params._meta).not.toHaveProperty(SUBSCRIPTION_ID);
    const changed = await server.nextMessage();
    expect(changed.method).toBe('notifications/tools/list_changed');
    expect(changed.params._meta).not.toHaveProperty(SUBSCRIPTION_ID);
  });

  it('no-capability-check: elicitation is asked of a client without the capability', async () => {
    const server = start('no-capability-check');
    const call = await server.request(1, 'tools/call', modernParams({ name: 'ask_name', arguments: {} }));
    expect(call.result.resultType).toBe('input_required');
    const [inputRequest] = Object.values(call.result.inputRequests) as Json[];
    expect(inputRequest.method).toBe('elicitation/create');
  });

  it('unverified-request-state: a forged requestState completes the call', async () => {
    const server = start('unverified-request-state');
    const retry = await server.request(
      1,
      'tools/call',
      modernParams(
        {
          name: 'ask_name',
          arguments: {},
          inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
          requestState: 'forged',
        },
        ELICITATION,
      ),
    );
    expect(retry.result.content[0].text).toBe('Hello, Mallory!');
  });
});
