/**
 * The base protocol of 2026-07-28 (MCP 2026-07-28 basic/index): the per-request `_meta` fields, the
 * `resultType` of every result, and the error for a client capability a request needs.
 */
import { META_KEYS } from '../../../src/protocol/versions.js';
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  pass,
  skip,
} from '../check.js';
import { INPUT_CAPABILITY, isInputRequired, modernToolCalls } from '../helpers/modern-scenarios.js';
import { HttpChannel } from '../probe/channel.js';
import { isObject, isResponse, type JsonObject, type Reply } from '../run/session.js';
import { probeMethods, unsupportedVersionProblem } from './versioning.js';

const base = {
  section: 'jsonrpc',
  versions: MODERN_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: MODERN_ONLY,
} as const;

const RESULT_TYPES = new Set(['complete', 'input_required']);

/** A request without any `_meta`, sent as it is (the session would add one). */
function withoutMeta(ctx: Parameters<Check['run']>[0], method: string): Promise<Reply> {
  return ctx.modern().session.requestUntyped(method, {}, { unstamped: true });
}

/** The HTTP status a modern POST of this reply got, or undefined over stdio. */
function httpStatusOf(ctx: Parameters<Check['run']>[0], reply: Reply): number | undefined {
  const channel = ctx.modern().session.channel;
  if (!(channel instanceof HttpChannel)) return undefined;
  return channel.posts.find((post) => post.requestId === reply.message.id)?.exchange?.status;
}

export const baseChecks: readonly Check[] = [
  {
    ...base,
    id: 'jsonrpc.malformed-meta',
    level: 'MUST',
    title: 'a request without _meta, or whose _meta lacks a required field, gets -32602 (HTTP 400)',
    requirement:
      'Client requests carry the following io.modelcontextprotocol/* fields in _meta; fields marked as required MUST be included on every request. A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request.',
    source: 'MCP 2026-07-28 basic/index (_meta: Per-request protocol fields)',
    async run(ctx) {
      // To a dual-era server a request without a modern version may be a legacy one (versioning,
      // "Backward Compatibility"), so only the request that names the modern version but lacks
      // clientCapabilities binds it; a modern-only server gets all three.
      const dual = ctx.serverEras.includes('legacy');
      const session = ctx.modern();
      const { [META_KEYS.clientCapabilities]: _capabilities, ...noCapabilities } = session.meta();
      const { [META_KEYS.protocolVersion]: _version, ...noVersion } = session.meta();
      const method = 'server/discover';
      const cases: [string, () => Promise<Reply>, boolean][] = [
        [
          '_meta without clientCapabilities',
          () => session.request(method, {}, { meta: noCapabilities }),
          false,
        ],
      ];
      if (!dual)
        cases.push(
          ['no _meta at all', () => withoutMeta(ctx, method), true],
          ['_meta without protocolVersion', () => session.request(method, {}, { meta: noVersion }), true],
        );
      const problems: string[] = [];
      for (const [label, send, versionMissing] of cases) {
        const reply = await send();
        const error = isObject(reply.message.error) ? reply.message.error : null;
        const status = httpStatusOf(ctx, reply);
        // Over HTTP a missing version is also a missing MCP-Protocol-Version header, which server
        // validation may reject first (-32020, also with 400).
        const codeOk =
          error?.code === -32602 || (versionMissing && status !== undefined && error?.code === -32020);
        const statusOk = status === undefined || status === 400;
        if (!codeOk || !statusOk)
          problems.push(
            `${label}: ${status === undefined ? '' : `HTTP ${status}, `}${brief(reply.message, 160)}`,
          );
      }
      if (problems.length > 0)
        return fail(
          'a request missing a required _meta field was not rejected as malformed',
          'error -32602 (on HTTP with status 400)',
          problems.join('; '),
        );
      return pass(cases.map(([label]) => label).join(', '));
    },
  },
  {
    ...base,
    id: 'jsonrpc.missing-version',
    level: 'MUST',
    title: 'a request without the _meta protocol version is refused',
    requirement:
      'A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params).',
    source:
      'MCP 2026-07-28 basic/index (_meta: Per-request protocol fields); basic/versioning (Protocol Version Negotiation)',
    async run(ctx) {
      // To a dual-era server a request without a modern version is a legacy request (versioning,
      // "Backward Compatibility"), and it may serve it so, or pin its process to the legacy era.
      if (ctx.serverEras.includes('legacy'))
        return skip(
          'the server speaks the legacy era too: a request without a modern version may be a legacy one',
        );
      const session = ctx.modern();
      const problems: string[] = [];
      const { [META_KEYS.protocolVersion]: _version, ...withoutVersion } = session.meta();
      for (const method of probeMethods(ctx)) {
        for (const [label, meta] of [
          ['no protocolVersion in _meta', withoutVersion],
          ['an empty _meta', undefined],
        ] as const) {
          const reply = await session.request(method, {}, meta === undefined ? { meta: {} } : { meta });
          const message = reply.message;
          // -32602 is the sentence of basic/index; -32022 naming the supported versions (what the reference
          // SDK sends) tells the client just as clearly what to do, so both are accepted.
          const error = isObject(message.error) ? message.error : null;
          const ok =
            error?.code === -32602 || (error?.code === -32022 && unsupportedVersionProblem(message) === null);
          if (!ok) problems.push(`${method} (${label}): ${brief(message, 160)}`);
        }
      }
      if (problems.length > 0) {
        return fail(
          'a request without a protocol version was not refused as malformed',
          'error -32602, or -32022 with data.supported',
          problems.join('; '),
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'jsonrpc.result-type',
    level: 'MUST',
    title: 'every result carries resultType',
    requirement: 'The result MUST include a resultType field to indicate the type of the result.',
    source: 'MCP 2026-07-28 basic/index (Result Responses; ResultType)',
    judgesWholeRun: true,
    async run(ctx) {
      const results = ctx.runLog
        .filter((entry) => entry.direction === 'in' && isResponse(entry.message))
        .map((entry) => entry.message as JsonObject)
        .filter((message) => isObject(message.result));
      if (results.length === 0) return skip('no result was seen in the modern era');
      const bad = results.filter((message) => {
        const type = (message.result as JsonObject).resultType;
        return typeof type !== 'string' || !RESULT_TYPES.has(type);
      });
      if (bad.length > 0) {
        return fail(
          `${bad.length} of ${results.length} results lack a valid resultType`,
          'resultType "complete" or "input_required" on every result',
          brief(bad[0]),
        );
      }
      return pass(`${results.length} results checked`);
    },
  },
  {
    ...base,
    id: 'jsonrpc.missing-client-capability',
    level: 'MUST',
    title: 'a request needing an undeclared client capability gets -32021 (--call-tools)',
    requirement:
      'A server MUST NOT rely on capabilities the client has not declared. If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities.',
    source:
      'MCP 2026-07-28 basic/index (_meta: Per-request protocol fields); basic/patterns/mrtr (Server Requirements)',
    async run(ctx) {
      const calls = await modernToolCalls(ctx);
      const problems: string[] = [];
      let judged = 0;
      for (const call of calls) {
        if (typeof call.bare === 'string') continue;
        const message = call.bare.message;
        if (isInputRequired(message)) {
          judged++;
          const requests = (message.result as JsonObject).inputRequests;
          const asked = isObject(requests) ? Object.values(requests) : [];
          const needing = asked
            .map((request) => (isObject(request) ? INPUT_CAPABILITY[String(request.method)] : undefined))
            .filter((capability) => capability !== undefined);
          if (needing.length > 0)
            problems.push(
              `${String(call.tool.name)} asked for ${needing.join(', ')} from a client that declared none`,
            );
        } else if (isObject(message.error) && message.error.code === -32021) {
          judged++;
          const data = message.error.data;
          if (!isObject(data) || !isObject(data.requiredCapabilities))
            problems.push(`${String(call.tool.name)}: -32021 without data.requiredCapabilities`);
        }
      }
      if (problems.length > 0) {
        return fail(
          'a client capability that was not declared was relied on',
          'error -32021 with data.requiredCapabilities',
          problems.join('; '),
        );
      }
      if (judged === 0) return skip('no tool needed a client capability');
      return pass(`${judged} tool calls needed a client capability`);
    },
  },
];
