/**
 * The Streamable HTTP transport in the modern era (2026-07-28) against a local server on 127.0.0.1:
 * the request metadata headers, no session and no GET or DELETE, a refused request's JSON-RPC error
 * handed up as that error, cancellation by closing the stream, and a cut stream re-issued by the client.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcRemoteError, RpcRequestFailedError } from '../../../jsonrpc/errors.js';
import { JsonRpcPeer } from '../../../jsonrpc/peer.js';
import { McpClient } from '../../client.js';
import {
  idOf,
  type LocalServer,
  methodOf,
  openSse,
  type RecordedRequest,
  sendJson,
  sseEvent,
  startLocalServer,
} from './local-server.test-helpers.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';

const servers: LocalServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

type OnRequest = (request: RecordedRequest, res: ServerResponse) => void;

/** A modern endpoint: server/discover and tools/list answered; everything else goes to `onRequest`. */
async function modernServer(onRequest: OnRequest, tools: unknown[] = []) {
  const server = await startLocalServer((request, res) => {
    if (request.method !== 'POST') return void res.writeHead(405).end();
    const id = idOf(request);
    const method = methodOf(request);
    if (method === 'server/discover') {
      // A session id a modern client must ignore.
      return sendJson(
        res,
        {
          jsonrpc: '2.0',
          id,
          result: {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            ttlMs: 0,
          },
        },
        { 'Mcp-Session-Id': 'not-for-modern' },
      );
    }
    if (method === 'tools/list') {
      return sendJson(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', tools, ttlMs: 0 } });
    }
    onRequest(request, res);
  });
  servers.push(server);
  return server;
}

function transportFor(server: LocalServer) {
  const transport = new StreamableHttpTransport({ url: server.url });
  closers.push(() => transport.close());
  return transport;
}

function peerFor(server: LocalServer) {
  const peer = new JsonRpcPeer(transportFor(server));
  closers.push(() => peer.close());
  return peer;
}

describe('StreamableHttpTransport, modern era', () => {
  it('sends the request metadata headers and never a session, a GET or a DELETE', async () => {
    const server = await modernServer(
      (request, res) => sendJson(res, { jsonrpc: '2.0', id: idOf(request), result: { content: [] } }),
      [
        {
          name: 'wetter_Zürich',
          inputSchema: {
            type: 'object',
            properties: {
              region: { type: 'string', 'x-mcp-header': 'Region' },
              opts: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'Count' } } },
            },
          },
        },
      ],
    );
    const client = new McpClient(transportFor(server), { name: 'local' });
    await client.connect({ timeoutMs: 10_000 });
    expect(client.era).toBe('modern');
    await client.callTool('wetter_Zürich', { region: ' padded ', opts: { n: 42 } });
    await client.close();

    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    for (const request of server.requests) {
      expect(request.headers['mcp-session-id']).toBeUndefined();
      expect(request.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(request.headers['mcp-method']).toBe(methodOf(request));
    }
    const call = server.requests[2]!;
    expect(call.headers['mcp-name']).toBe(`=?base64?${Buffer.from('wetter_Zürich').toString('base64')}?=`);
    expect(call.headers['mcp-param-region']).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(call.headers['mcp-param-count']).toBe('42');
    expect(server.requests[1]!.headers['mcp-name']).toBeUndefined();
  });

  it('hands up the JSON-RPC error in a 400 body as that error; a 400 without one is a lost request', async () => {
    let withBody = true;
    const server = await modernServer((_request, res) => {
      if (!withBody) return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Bad Request');
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2030-01-01'] },
          },
        }),
      );
    });
    const peer = peerFor(server);
    await peer.start();
    const refused = await peer.request('tools/call', { name: 'x', _meta: META }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcRemoteError);
    expect(refused).toMatchObject({ code: -32022, data: { supported: ['2030-01-01'] } });
    withBody = false;
    const lost = await peer.request('tools/call', { name: 'x', _meta: META }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(RpcRequestFailedError);
    expect((lost as RpcRequestFailedError).reason).toContain('HTTP 400');
  });

  it('cancels a modern request by closing its stream, without posting notifications/cancelled', async () => {
    let streamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      streamClosed = resolve;
    });
    const server = await modernServer((_request, res) => {
      openSse(res);
      res.on('close', () => streamClosed());
    });
    const peer = peerFor(server);
    await peer.start();
    const abort = new AbortController();
    const pending = peer.request('tools/call', { name: 'slow', _meta: META }, { signal: abort.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    abort.abort(new Error('the user pressed Esc'));
    await expect(pending).rejects.toThrow(/cancelled/);
    await closed;
    expect(server.requests.map(methodOf)).toEqual(['tools/call']);
  });

  it('a tools/list whose stream is cut is re-issued once with a new id', async () => {
    let lists = 0;
    const server = await startLocalServer((request, res) => {
      const id = idOf(request);
      if (methodOf(request) === 'server/discover') {
        return sendJson(res, {
          jsonrpc: '2.0',
          id,
          result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } },
        });
      }
      lists++;
      openSse(res);
      if (lists === 1) {
        sseEvent(res, {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'x', progress: 1 },
        });
        return void res.destroy();
      }
      sseEvent(res, {
        jsonrpc: '2.0',
        id,
        result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
      });
      res.end();
    });
    servers.push(server);
    const client = new McpClient(transportFor(server), { name: 'local' });
    closers.push(() => client.close());
    await client.connect({ timeoutMs: 10_000 });
    expect(client.tools.map((t) => t.name)).toEqual(['echo']);
    const ids = server.requests.filter((r) => methodOf(r) === 'tools/list').map(idOf);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
