/**
 * More of the request headers of Streamable HTTP in the 2026-07-28 shape (MCP 2026-07-28
 * basic/transports/streamable-http): a missing MCP-Protocol-Version header, header names in any case,
 * an Mcp-Param-{Name} value with characters a header may not hold, and the 400 of a request whose
 * `_meta` lacks a required field (basic/index).
 */
import { request as httpRequestRaw } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { checkToolHeaders } from '../../../src/mcp/era/tool-headers.js';
import { META_KEYS } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import { brief, type Check, CouldNotTell, fail, MODERN_ONLY, MODERN_VERSIONS, pass, skip } from '../check.js';
import { modernTools } from '../helpers/modern-scenarios.js';
import { modernRequestHeaders } from '../probe/channel.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';
import { validArguments } from '../server-features/tools.js';
import { errorCodeOf, modernHttpChannel, postRequest } from './http-post.js';

const PAGE = 'MCP 2026-07-28 basic/transports/streamable-http';
const base = { section: 'http', versions: MODERN_VERSIONS, transports: ['http'], eras: MODERN_ONLY } as const;

let nextId = 1;

/** A server/discover POST whose body and headers the caller shapes. */
async function discoverPost(
  ctx: CheckContext,
  meta: JsonObject,
  change: (headers: Record<string, string>) => void,
): Promise<{ status: number; response: JsonObject | undefined; body: string }> {
  const { exchange, response } = await postRequest(
    ctx,
    'furfly-http-headers-',
    'server/discover',
    { _meta: meta },
    change,
  );
  return { status: exchange.status, response, body: exchange.body };
}

/**
 * One POST over node:http, which sends header names exactly as given (fetch lowercases them), so the
 * server sees the case the check chose. The reply is read as JSON or as an event stream.
 */
function rawPost(
  url: string,
  headers: [string, string][],
  body: string,
  timeoutMs: number,
): Promise<{ status: number; messages: JsonObject[] }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequestRaw : httpRequestRaw;
    const outgoing = send(target, {
      method: 'POST',
      headers: Object.fromEntries(headers),
      timeout: timeoutMs,
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no HTTP response within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const lines = text.trimStart().startsWith('{')
          ? [text]
          : text
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5));
        const messages: JsonObject[] = [];
        for (const line of lines) {
          try {
            const value: unknown = JSON.parse(line);
            if (isObject(value)) messages.push(value);
          } catch {
            // Not JSON: nothing to judge in it.
          }
        }
        resolve({ status: res.statusCode ?? 0, messages });
      });
    });
    outgoing.end(body);
  });
}

/** Every letter's case flipped (`mcp-method` → `MCP-METHOD`, `Mcp-Method` → `mCP-mETHOD`). */
export function oddCase(name: string): string {
  return [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

export const modernHttpHeaderChecks: readonly Check[] = [
  {
    ...base,
    id: 'http.version-header-missing',
    level: 'MUST',
    title: 'a modern-only server rejects a POST without MCP-Protocol-Version (400, -32020)',
    requirement:
      'A server that does not support such clients MUST reject a request without the header per Server Validation. When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code: -32020.',
    source: `${PAGE} (Request Metadata: Protocol Version Header; Server Validation)`,
    async run(ctx) {
      if (ctx.serverEras.includes('legacy'))
        return skip(
          'the server speaks the legacy era too, so it may take a request without the header as 2025-03-26',
        );
      const session = ctx.modern();
      const { status, response, body } = await discoverPost(ctx, session.meta(), (headers) => {
        delete headers['mcp-protocol-version'];
      });
      if (status !== 400 || errorCodeOf(response) !== -32020)
        return fail(
          'a POST without MCP-Protocol-Version was not rejected per Server Validation',
          'HTTP 400 with error -32020',
          `HTTP ${status}, ${brief(response ?? body, 200)}`,
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'http.header-names-any-case',
    level: 'MUST',
    title: 'request header names are compared case-insensitively',
    requirement:
      'Header names (called "field names" in RFC 9110) are case-insensitive. Clients and servers MUST use case-insensitive comparisons for header names.',
    source: `${PAGE} (Case Sensitivity)`,
    async run(ctx) {
      const channel = modernHttpChannel(ctx);
      const id = `furfly-http-case-${nextId++}`;
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'server/discover',
        params: { _meta: ctx.modern().meta() },
      });
      const mirrored = Object.entries(modernRequestHeaders(text)).map(([name, value]): [string, string] => [
        oddCase(canonical(name)),
        value,
      ]);
      const headers: [string, string][] = [
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json, text/event-stream'],
        ...Object.entries(channel.target.headers),
        ...mirrored,
      ];
      let reply: { status: number; messages: JsonObject[] };
      try {
        reply = await rawPost(channel.target.url, headers, text, ctx.timeoutMs);
      } catch (error) {
        throw new CouldNotTell(`the POST failed: ${errorText(error)}`, 'a result', 'no answer');
      }
      const response = reply.messages.find((m) => m.id === id && !('method' in m));
      if (reply.status !== 200 || !isObject(response?.result))
        return fail(
          'server/discover with the metadata headers in another case was not served',
          `a result (headers sent as ${mirrored.map(([name]) => name).join(', ')})`,
          `HTTP ${reply.status}, ${brief(response ?? reply.messages, 200)}`,
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'http.malformed-meta-400',
    level: 'MUST',
    title: 'a request whose _meta lacks clientCapabilities gets HTTP 400',
    requirement:
      'A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request.',
    source: 'MCP 2026-07-28 basic/index (_meta: Per-request protocol fields)',
    async run(ctx) {
      const { [META_KEYS.clientCapabilities]: _capabilities, ...meta } = ctx.modern().meta();
      const { status, response, body } = await discoverPost(ctx, meta, () => {});
      if (status !== 400 || !isObject(response?.error))
        return fail(
          'a request without io.modelcontextprotocol/clientCapabilities was not refused with 400',
          'HTTP 400 with a JSON-RPC error (-32602)',
          `HTTP ${status}, ${brief(response ?? body, 200)}`,
        );
      return pass(`HTTP 400, error ${String(errorCodeOf(response))}`);
    },
  },
  {
    ...base,
    id: 'http.param-invalid-chars',
    level: 'MUST',
    title: 'an Mcp-Param header with characters outside visible ASCII is rejected (--call-tools)',
    requirement:
      'Servers MUST reject requests with a recognized Mcp-Param-{Name} header that contains invalid characters (see Value Encoding).',
    source: `${PAGE} (Server Behavior for Custom Headers; Value Encoding)`,
    async run(ctx) {
      if (!ctx.settings.callTools) return skip('tools are called only with --call-tools');
      const target = headerParameterTool(await modernTools(ctx), ctx.version);
      if (!target) return skip('no tool has a plain top-level string parameter annotated with x-mcp-header');
      const { tool, property, header, args } = target;
      // A raw Latin-1 letter: what a client that skipped the Base64 encoding would send.
      const value = 'furfly-conformance-\u00e9';
      const session = ctx.modern();
      const reply = await session.request(
        'tools/call',
        { name: tool.name, arguments: { ...args, [property]: value } },
        { inputSchema: tool.inputSchema, headers: { [`Mcp-Param-${header}`]: value } },
      );
      const channel = modernHttpChannel(ctx);
      const status = channel.posts.find((post) => post.requestId === reply.message.id)?.exchange?.status;
      if (status === undefined || status < 400)
        return fail(
          `Mcp-Param-${header} carrying a raw non-ASCII character was accepted`,
          'HTTP 400 (the value is not a valid header value; it needed the Base64 form)',
          `HTTP ${String(status)}, ${brief(reply.message, 200)}`,
        );
      return pass(`HTTP ${status}`);
    },
  },
];

/** The canonical spelling of a lowercase metadata header name. */
function canonical(name: string): string {
  if (name === 'mcp-protocol-version') return 'MCP-Protocol-Version';
  return name.replace(
    /(^|-)([a-z])/g,
    (_m, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`,
  );
}

/** A tool with an annotated top-level string parameter free of value constraints, and valid arguments. */
function headerParameterTool(
  tools: JsonObject[],
  version: Parameters<typeof validArguments>[1],
): { tool: JsonObject; property: string; header: string; args: JsonObject } | undefined {
  for (const tool of tools) {
    const check = checkToolHeaders(tool.inputSchema);
    if (!check.ok) continue;
    const properties =
      isObject(tool.inputSchema) && isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    for (const { path, header } of check.parameters) {
      const property = path[0];
      if (path.length !== 1 || property === undefined) continue;
      const schema = properties[property];
      if (!isObject(schema) || schema.type !== 'string') continue;
      if (['enum', 'const', 'pattern', 'format', 'maxLength'].some((keyword) => keyword in schema)) continue;
      const args = validArguments(tool.inputSchema, version);
      if (isObject(args)) return { tool, property, header, args };
    }
  }
  return undefined;
}
