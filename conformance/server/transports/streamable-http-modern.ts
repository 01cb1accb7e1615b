/**
 * Streamable HTTP in the 2026-07-28 shape (MCP 2026-07-28 basic/transports/streamable-http): the request
 * metadata headers are checked against the body, an unknown method is a 404, and a modern-only server
 * has no sessions, GET stream or DELETE.
 */
import {
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
  skip,
} from '../check.js';
import { type HttpExchange, httpRequest } from '../probe/http.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';
import { errorCodeOf, modernHttpChannel, postRequest } from './http-post.js';

const PAGE = 'MCP 2026-07-28 basic/transports/streamable-http';
const base = { section: 'http', versions: MODERN_VERSIONS, transports: ['http'], eras: MODERN_ONLY } as const;
const NO_SUCH_TOOL = 'furfly-conformance-no-such-tool';

/** One modern POST with the mirrored headers, changed by `override` (a null value removes a header). */
function post(
  ctx: CheckContext,
  method: string,
  params: JsonObject,
  override: Record<string, string | null> = {},
): Promise<{ exchange: HttpExchange; response: JsonObject | undefined }> {
  return postRequest(ctx, 'furfly-http-', method, { ...params, _meta: ctx.modern().meta() }, (headers) => {
    for (const [name, value] of Object.entries(override)) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
  });
}

/** A named request the server declares: tools/call of a tool that does not exist, or the like. */
function namedRequest(
  ctx: CheckContext,
  name?: string,
): { method: string; params: JsonObject; name: string } {
  const caps = ctx.capabilities;
  if (isObject(caps.tools)) {
    const tool = name ?? NO_SUCH_TOOL;
    return { method: 'tools/call', params: { name: tool, arguments: {} }, name: tool };
  }
  if (isObject(caps.prompts)) {
    const prompt = name ?? NO_SUCH_TOOL;
    return { method: 'prompts/get', params: { name: prompt }, name: prompt };
  }
  if (isObject(caps.resources)) {
    const uri = name ?? 'furfly-conformance://no-such-resource';
    return { method: 'resources/read', params: { uri }, name: uri };
  }
  throw new NotApplicable('the server declares no tools, prompts or resources (no request carries Mcp-Name)');
}

export const modernHttpChecks: readonly Check[] = [
  {
    ...base,
    id: 'http.header-mismatch',
    level: 'MUST',
    title: 'headers contradicting the body get 400 and -32020',
    requirement:
      'Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body. When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code: -32020.',
    source: `${PAGE} (Request Metadata: Protocol Version Header, Standard Request Headers; Server Validation)`,
    async run(ctx) {
      const named = namedRequest(ctx);
      const cases: [string, string, JsonObject, Record<string, string | null>][] = [
        ['MCP-Protocol-Version', 'server/discover', {}, { 'mcp-protocol-version': '2025-11-25' }],
        ['Mcp-Method', 'server/discover', {}, { 'mcp-method': 'tools/list' }],
        ['Mcp-Name', named.method, named.params, { 'mcp-name': `${named.name}-other` }],
      ];
      const problems: string[] = [];
      for (const [header, method, params, override] of cases) {
        const { exchange, response } = await post(ctx, method, params, override);
        if (exchange.status !== 400 || errorCodeOf(response) !== -32020)
          problems.push(
            `${header} contradicting ${method}: HTTP ${exchange.status}, ${brief(response ?? exchange.body, 160)}`,
          );
      }
      if (problems.length > 0)
        return fail(
          'a contradicting header was not rejected',
          'HTTP 400 with error -32020',
          problems.join('; '),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'http.encoded-name',
    level: 'MUST',
    title: 'a Base64-encoded Mcp-Name is decoded before it is compared',
    requirement:
      'Servers and intermediaries that need to inspect these values MUST decode them accordingly. In particular, servers MUST decode an encoded Mcp-Name or Mcp-Param-{Name} value before comparing it to the corresponding request body value during Server Validation.',
    source: `${PAGE} (Custom Headers from Tool Parameters: Value Encoding)`,
    async run(ctx) {
      const named = namedRequest(ctx);
      const encoded = `=?base64?${Buffer.from(named.name, 'utf8').toString('base64')}?=`;
      const { exchange, response } = await post(ctx, named.method, named.params, { 'mcp-name': encoded });
      if (errorCodeOf(response) === -32020 || (exchange.status === 400 && response === undefined)) {
        return fail(
          'an Mcp-Name in the Base64 sentinel form was taken for a mismatch',
          `the request served as if Mcp-Name were ${named.name}`,
          `HTTP ${exchange.status}, ${brief(response ?? exchange.body, 200)}`,
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'http.partial-sentinel-literal',
    level: 'MUST',
    title: 'an Mcp-Name that starts =?base64? but lacks the closing ?= is compared as it is',
    requirement:
      'The prefix =?base64? and suffix ?= indicate that the value is Base64-encoded. Any server that processes the message body MUST validate that encoded header values, after decoding if Base64-encoded, match the corresponding values in the request body.',
    source: `${PAGE} (Custom Headers from Tool Parameters: Value Encoding; Server Behavior for Custom Headers)`,
    // Only prefix and suffix together mark Base64 (the clients' rule names the pattern: "starts with
    // =?base64? and ends with ?="). A name with the prefix alone is plain text, equal to the body's.
    async run(ctx) {
      const literal = '=?base64?ZnVyZmx5';
      const named = namedRequest(ctx, literal);
      const { exchange, response } = await post(ctx, named.method, named.params, { 'mcp-name': literal });
      if (errorCodeOf(response) === -32020 || (exchange.status === 400 && response === undefined)) {
        return fail(
          'an Mcp-Name with the Base64 prefix but no closing ?= was not compared as plain text',
          `Mcp-Name ${literal} matching the body's ${literal} (the request served, whatever its answer)`,
          `HTTP ${exchange.status}, ${brief(response ?? exchange.body, 200)}`,
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'http.unknown-method-404',
    level: 'MUST',
    title: 'an unknown method gets 404 and -32601',
    requirement:
      'If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).',
    source: `${PAGE} (Request Metadata: Protocol Version Header)`,
    async run(ctx) {
      const { exchange, response } = await post(ctx, 'furfly/no-such-method', {});
      if (exchange.status !== 404 || errorCodeOf(response) !== -32601) {
        return fail(
          'an unknown method was not answered 404 with -32601',
          'HTTP 404 with error -32601',
          `HTTP ${exchange.status}, ${brief(response ?? exchange.body, 200)}`,
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'http.get-delete-405',
    level: 'SHOULD',
    title: 'a modern-only server answers GET and DELETE with 405',
    requirement:
      'A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed.',
    source: `${PAGE} (Backward Compatibility: Earlier Streamable HTTP Revisions)`,
    async run(ctx) {
      if (ctx.serverEras.includes('legacy'))
        return skip('the server speaks the legacy era too, where GET and DELETE have a meaning');
      const channel = modernHttpChannel(ctx);
      const problems: string[] = [];
      for (const method of ['GET', 'DELETE'] as const) {
        const exchange = await httpRequest(channel.target, {
          method,
          headers: { accept: 'text/event-stream', 'mcp-protocol-version': ctx.protocolVersion },
          timeoutMs: ctx.timeoutMs,
          headersOnly: true,
        });
        if (exchange.status !== 405) problems.push(`${method}: HTTP ${exchange.status}`);
      }
      if (problems.length > 0)
        return fail('GET or DELETE was not refused with 405', 'HTTP 405 for both', problems.join('; '));
      return pass();
    },
  },
  {
    ...base,
    id: 'http.no-session-id',
    level: 'SHOULD',
    title: 'no Mcp-Session-Id is issued in the modern era',
    requirement: 'An Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs.',
    source: `${PAGE} (Backward Compatibility: Earlier Streamable HTTP Revisions)`,
    judgesWholeRun: true,
    async run(ctx) {
      const exchanges = ctx.httpChannels.flatMap((channel) =>
        channel.posts.map((post) => post.exchange).filter((e): e is HttpExchange => e !== undefined),
      );
      if (exchanges.length === 0) return skip('no modern POST was answered');
      const issued = exchanges.filter((exchange) => exchange.headers.get('mcp-session-id') !== null);
      if (issued.length > 0) {
        return fail(
          `${issued.length} of ${exchanges.length} modern answers carried an Mcp-Session-Id`,
          'no Mcp-Session-Id header',
          `Mcp-Session-Id present (value not shown)`,
        );
      }
      return pass(`${exchanges.length} answers checked`);
    },
  },
  {
    ...base,
    id: 'http.missing-capability-400',
    level: 'MUST',
    title: 'a -32021 (missing client capability) answer has HTTP status 400 (--call-tools)',
    requirement:
      'If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities. On HTTP, the response status MUST be 400 Bad Request.',
    source: 'MCP 2026-07-28 basic/index (_meta: Per-request protocol fields)',
    judgesWholeRun: true,
    async run(ctx) {
      // Every POST of the run whose own response is -32021: the tool calls of --call-tools that declare
      // no client capability are where a server says it. Whether it should have said -32021 at all is
      // jsonrpc.missing-client-capability's judgement; this check reads only the status it came with.
      const answered = ctx.httpChannels.flatMap((channel) =>
        channel.posts.flatMap((post) => {
          const exchange = post.exchange;
          if (exchange === undefined || post.requestId === undefined) return [];
          const response = exchange.messages.find(
            (m): m is JsonObject => isObject(m) && m.id === post.requestId && !('method' in m),
          );
          return errorCodeOf(response) === -32021 ? [exchange] : [];
        }),
      );
      if (answered.length === 0)
        return skip(
          ctx.settings.callTools
            ? 'nothing to judge: no request was answered with -32021'
            : 'nothing to judge: no request was answered with -32021 (tool calls that need a client capability run with --call-tools)',
        );
      const wrong = answered.filter((exchange) => exchange.status !== 400);
      if (wrong.length > 0)
        return fail(
          `${wrong.length} of ${answered.length} -32021 answers did not have HTTP status 400`,
          'HTTP 400 Bad Request',
          wrong
            .slice(0, 3)
            .map((exchange) => `HTTP ${exchange.status} (${exchange.contentType || 'no content type'})`)
            .join('; '),
        );
      return pass(`${answered.length} -32021 answer(s) with HTTP 400`);
    },
  },
];
