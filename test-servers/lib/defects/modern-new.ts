/**
 * Spec-breaker defects of 2026-07-28 duties without a legacy counterpart (each needs --era modern or
 * dual): the `x-mcp-header` rules of tool definitions, which requests may get an InputRequiredResult,
 * the error codes the specification reserves, server-sent cancellation, cache scopes across pages,
 * extension identifiers, statelessness, and the request headers of Streamable HTTP. Each breaks exactly
 * one requirement; test-servers/spec-breaker.ts spreads these records into its own.
 */
import { randomBytes } from 'node:crypto';
import type { HttpDefects } from '../http-common.js';
import { isObject, type JsonRpcRequest } from '../protocol.js';
import type { SessionHooks, Sink } from '../session.js';

type Message = Record<string, unknown>;

/** The JSON text of a response, changed by `change` when it answers `method` with a result. */
function onResult(method: string, change: (result: Message, request: JsonRpcRequest) => void) {
  return (request: JsonRpcRequest, response: Message): string => {
    if (request.method !== method || !isObject(response.result)) return JSON.stringify(response);
    const copy = structuredClone(response) as Message & { result: Message };
    change(copy.result, request);
    return JSON.stringify(copy);
  };
}

/** Changes the inputSchema of one tool in a tools/list result. */
function changeToolSchema(tool: string, change: (schema: Message, properties: Message) => void) {
  return onResult('tools/list', (result) => {
    for (const entry of Array.isArray(result.tools) ? result.tools : []) {
      if (!isObject(entry) || entry.name !== tool || !isObject(entry.inputSchema)) continue;
      const schema = entry.inputSchema;
      if (!isObject(schema.properties)) schema.properties = {};
      change(schema, schema.properties as Message);
    }
  });
}

/** Annotates one property of one tool with `x-mcp-header: header` (and any more schema keywords). */
function annotate(tool: string, property: string, header: string, more: Message = {}) {
  return changeToolSchema(tool, (_schema, properties) => {
    const target = properties[property];
    if (isObject(target)) Object.assign(target, { 'x-mcp-header': header, ...more });
  });
}

/**
 * An onIncoming hook: 20 ms after a subscriptions/listen request (once its acknowledgement is out), the
 * notification `extra` returns goes on its stream, tagged with the subscription id. The request itself is
 * left to the session.
 */
function onListen(extra: (meta: Message) => { method: string; params?: Message } | undefined) {
  return (value: unknown, sink: Sink): boolean => {
    if (!isObject(value) || value.method !== 'subscriptions/listen' || !('id' in value)) return false;
    const meta = isObject(value.params) && isObject(value.params._meta) ? value.params._meta : {};
    const message = extra(meta);
    if (!message) return false;
    const params = { ...message.params, _meta: { 'io.modelcontextprotocol/subscriptionId': value.id } };
    setTimeout(
      () => sink.write(JSON.stringify({ jsonrpc: '2.0', method: message.method, params }), 'notification'),
      20,
    );
    return false;
  };
}

/** Capabilities declared on any earlier request of this process (the remembered-capabilities defect). */
const rememberedCapabilities: Message = {};
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * Set once per process: over stdio every connection is a process of its own, so an item named after it
 * makes the listed set differ from one connection to the next.
 */
const PER_PROCESS = randomBytes(4).toString('hex');

/** The last page of a list gets one more item that exists only in this process. */
function perProcessItem(method: string, field: string, item: Message) {
  return onResult(method, (result) => {
    if (result.nextCursor !== undefined || !Array.isArray(result[field])) return;
    (result[field] as unknown[]).push(item);
  });
}

export const MODERN_NEW_SESSION_DEFECTS = {
  /**
   * tools/list, prompts/list and resources/list each end with an item named after this process, so the
   * sets vary per connection over stdio (2026-07-28: they "MUST NOT vary per-connection").
   */
  'per-connection-lists': {
    encodeResponse(request, response) {
      const tool = { name: `only_here_${PER_PROCESS}`, inputSchema: { type: 'object' } };
      const prompt = { name: `only_here_${PER_PROCESS}` };
      const resource = { uri: `test://only-here/${PER_PROCESS}`, name: `only_here_${PER_PROCESS}` };
      for (const change of [
        perProcessItem('tools/list', 'tools', tool),
        perProcessItem('prompts/list', 'prompts', prompt),
        perProcessItem('resources/list', 'resources', resource),
      ]) {
        const text = change(request, response);
        if (text !== JSON.stringify(response)) return text;
      }
      return JSON.stringify(response);
    },
  },
  /**
   * An InputRequiredResult gives its first inputRequests key twice (the same request both times), which
   * only the raw text shows: a JSON parser keeps one, so nothing else the suite judges changes.
   */
  'duplicate-input-request-key': {
    encodeResponse(_request, response) {
      const text = JSON.stringify(response);
      const result = response.result;
      const requests = isObject(result) && isObject(result.inputRequests) ? result.inputRequests : undefined;
      const first = requests === undefined ? undefined : Object.entries(requests)[0];
      if (first === undefined) return text;
      const [key, request] = first;
      return text.replace(
        '"inputRequests":{',
        `"inputRequests":{${JSON.stringify(key)}:${JSON.stringify(request)},`,
      );
    },
  },
  /** tools/list: echo's message carries an empty x-mcp-header. */
  'xmh-empty': { encodeResponse: annotate('echo', 'message', '') },
  /** tools/list: echo's message carries an x-mcp-header with a space (not a token). */
  'xmh-not-token': { encodeResponse: annotate('echo', 'message', 'Echo Message') },
  /** tools/list: echo's message carries an x-mcp-header with CR LF in it (header injection). */
  'xmh-control-char': { encodeResponse: annotate('echo', 'message', 'Echo\r\nX-Injected: 1') },
  /** tools/list: slow_echo annotates two parameters with the same header name in different case. */
  'xmh-duplicate': {
    encodeResponse: changeToolSchema('slow_echo', (_schema, properties) => {
      if (isObject(properties.message)) properties.message['x-mcp-header'] = 'Echo';
      if (isObject(properties.delay_ms)) properties.delay_ms['x-mcp-header'] = 'ECHO';
    }),
  },
  /** tools/list: add's number parameter `a` carries an x-mcp-header (number is not allowed). */
  'xmh-not-primitive': { encodeResponse: annotate('add', 'a', 'A') },
  /** tools/list: large's integer `bytes` carries an x-mcp-header and a maximum of 2^60 (unsafe). */
  'xmh-unsafe-int': { encodeResponse: annotate('large', 'bytes', 'Bytes', { maximum: 2 ** 60 }) },
  /** tools/list: echo declares an annotated schema under $defs, not reachable through properties. */
  'xmh-unreachable': {
    encodeResponse: changeToolSchema('echo', (schema) => {
      schema.$defs = { hidden: { type: 'string', 'x-mcp-header': 'Hidden' } };
    }),
  },
  /** The first InputRequiredResult of a tools/call has neither inputRequests nor requestState. */
  'input-required-empty': {
    encodeResponse: onResult('tools/call', (result, request) => {
      if (result.resultType !== 'input_required' || request.params?.inputResponses !== undefined) return;
      delete result.inputRequests;
      delete result.requestState;
    }),
  },
  /** resources/templates/list is answered with an InputRequiredResult (only tools/call, prompts/get, resources/read may). */
  'input-required-on-list': {
    encodeResponse: (request, response) => {
      if (request.method !== 'resources/templates/list' || !isObject(response.result))
        return JSON.stringify(response);
      return JSON.stringify({
        ...response,
        result: {
          resultType: 'input_required',
          inputRequests: { roots: { method: 'roots/list', params: {} } },
        },
      });
    },
  },
  /** After answering a tools/call, notifications/cancelled names that (finished) request. */
  /** After each tools/list answer: notifications/cancelled for a request id the client never sent. */
  'cancel-never-issued': {
    afterResponse(request, sink) {
      if (request.method !== 'tools/list') return;
      const params = { requestId: 'spec-breaker-never-issued', reason: 'spec-breaker' };
      sink.write(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params }),
        'notification',
      );
    },
  },
  'cancel-answered-requests': {
    afterResponse(request, sink) {
      if (request.method !== 'tools/call') return;
      const params = { requestId: request.id, reason: 'spec-breaker: this request is done' };
      sink.write(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params }),
        'notification',
      );
    },
  },
  /** A requestState that fails verification is refused with -32050, a code the specification does not define. */
  'reserved-error-code': {
    encodeResponse(request, response) {
      const error = response.error;
      if (request.method !== 'tools/call' || !isObject(error) || error.code !== -32602)
        return JSON.stringify(response);
      if (!String(error.message).startsWith('Invalid requestState')) return JSON.stringify(response);
      return JSON.stringify({ ...response, error: { ...error, code: -32050 } });
    },
  },
  /** Every page of a list after the first is cacheScope "private" (the first is "public"). */
  'page-scope-varies': {
    encodeResponse(request, response) {
      const result = response.result;
      if (!request.method.endsWith('/list') || !isObject(result) || request.params?.cursor === undefined)
        return JSON.stringify(response);
      return JSON.stringify({ ...response, result: { ...result, cacheScope: 'private' } });
    },
  },
  /** server/discover declares an extension under an identifier without a prefix. */
  'extension-id-unprefixed': {
    encodeResponse: onResult('server/discover', (result) => {
      if (!isObject(result.capabilities)) result.capabilities = {};
      (result.capabilities as Message).extensions = { ui: {} };
    }),
  },
  /**
   * Client capabilities declared on an earlier request of this process are added to every later one:
   * the server relies on prior requests over the connection.
   */
  'remembered-capabilities': {
    beforeRequest(request) {
      const meta = isObject(request.params) && isObject(request.params._meta) ? request.params._meta : null;
      if (!meta || !isObject(meta[CAPABILITIES_KEY])) return;
      const declared = meta[CAPABILITIES_KEY] as Message;
      Object.assign(rememberedCapabilities, declared);
      meta[CAPABILITIES_KEY] = { ...rememberedCapabilities, ...declared };
    },
  },
  /** 20 ms after a subscriptions/listen arrives, a prompts-list change it did not ask for goes on it. */
  'unrequested-notifications': {
    onIncoming: onListen(() => ({ method: 'notifications/prompts/list_changed' })),
  },
  /** A subscriptions/listen that names a log level gets a log message on its stream. */
  'log-on-listen': {
    onIncoming: onListen((meta) =>
      typeof meta['io.modelcontextprotocol/logLevel'] === 'string'
        ? {
            method: 'notifications/message',
            params: { level: 'info', logger: 'spec-breaker', data: 'subscription opened' },
          }
        : undefined,
    ),
  },
} satisfies Record<string, SessionHooks>;

export const MODERN_NEW_HTTP_DEFECTS = {
  /** A POST without the MCP-Protocol-Version header is served (it is checked only when present). */
  'missing-version-header-accepted': { acceptMissingVersionHeader: true },
  /** The request metadata headers are found only under their canonical or all-lowercase names. */
  'case-sensitive-headers': { caseSensitiveHeaderNames: true },
  /** A request whose _meta lacks the protocol version or capabilities gets its error with 200, not 400. */
  'malformed-meta-200': { malformedMetaStatus: 200 },
  /** A tool call that needs an undeclared client capability gets its -32021 with 200, not 400. */
  'missing-capability-200': { missingCapabilityStatus: 200 },
  /** An Mcp-Param-{Name} value with characters outside visible ASCII is accepted as it is. */
  'param-invalid-chars-accepted': { acceptInvalidParamChars: true },
  /** An Mcp-Name starting `=?base64?` without the closing `?=` is decoded as Base64 (not compared as it is). */
  'partial-sentinel-base64': { partialSentinelIsBase64: true },
} satisfies Record<string, HttpDefects>;
