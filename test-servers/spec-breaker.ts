/**
 * spec-breaker: the well-behaved server with exactly one requirement of the specification broken,
 * chosen by --break. It exists so that every MUST check of `furfly conformance` has a server that
 * fails it (see fixtures/conformance/spec-breaker.*.expected.json).
 *
 *   node dist/test-servers/spec-breaker.js --break <defect> [common flags, e.g. --http --reply sse]
 *
 * Each defect is a thin hook on the shared core (lib/session.ts hooks, lib/http.ts defects); the list
 * with what each one does is DEFECTS below and test-servers/README.md.
 */
import { randomUUID } from 'node:crypto';
import { choiceFlag, runServer, standardDefinition, UsageError } from './lib/cli.js';
import { MODERN_NEW_HTTP_DEFECTS, MODERN_NEW_SESSION_DEFECTS } from './lib/defects/modern-new.js';
import { SECRET_DEFECTS } from './lib/defects/secrets.js';
import { SHAPE_DEFECTS } from './lib/defects/shapes.js';
import { TASK_DEFECTS } from './lib/defects/tasks.js';
import { WIRE_DEFECTS } from './lib/defects/wire.js';
import type { HttpDefects } from './lib/http-common.js';
import { ModernErrorCode } from './lib/modern.js';
import { ErrorCode, isObject, type JsonRpcRequest, RpcError } from './lib/protocol.js';
import { encodeError, type ModernDefects, type SessionHooks, type Sink } from './lib/session.js';
import { STANDARD_TOOLS } from './lib/tools.js';

type Response = Record<string, unknown>;

/** Rewrites the result (or error) of responses to one method; everything else is left alone. */
function rewrite(method: string, change: (response: Response, request: JsonRpcRequest) => Response) {
  return (request: JsonRpcRequest, response: Response): string =>
    JSON.stringify(request.method === method ? change(structuredClone(response), request) : response);
}

function withResult(response: Response, change: (result: Response) => void): Response {
  if (isObject(response.result)) change(response.result);
  return response;
}

/** A promise that never settles unless the request is aborted (cancelled, session closed). */
function never(signal: AbortSignal): Promise<void> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

const OLDER: Record<string, string> = {
  '2025-11-25': '2025-06-18',
  '2025-06-18': '2025-03-26',
  '2025-03-26': '2025-06-18',
};
const KNOWN_TOOLS = new Set(STANDARD_TOOLS.map((tool) => tool.name));
const CONCURRENT_LIMIT = 10;

/** Shared state of the stdio defects that need it (one session per process on stdio). */
let initializeSeen = false;
let pingsInFlight = 0;
let heldOnce = false;
let releaseHeld: (() => void) | undefined;
let strayIds = 0;
let earlyRequests = 0;
/** Requests being handled (stale-cancel-exits), by JSON-encoded id. */
const runningIds = new Set<string>();

/** The methods the core answers; any other one is "unknown" to the late-reply behaviour. */
const CORE_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
]);

const isNotification = (value: unknown): boolean =>
  isObject(value) && typeof value.method === 'string' && !('id' in value);

/**
 * Removes one capability from the initialize result, and from the server/discover result (where a
 * modern request finds the capabilities), so the defect shows in both eras.
 */
function dropCapability(name: string) {
  return (request: JsonRpcRequest, response: Response): string => {
    if (request.method !== 'initialize' && request.method !== 'server/discover')
      return JSON.stringify(response);
    return JSON.stringify(
      withResult(structuredClone(response), (result) => {
        if (isObject(result.capabilities)) delete result.capabilities[name];
      }),
    );
  };
}

/** An onIncoming hook that sends one notification when notifications/initialized arrives. */
function notifyOnInitialized(method: string, params?: Record<string, unknown>) {
  return (value: unknown, sink: Sink): boolean => {
    if (isNotification(value) && (value as { method: string }).method === 'notifications/initialized') {
      const message = params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
      sink.write(JSON.stringify(message), 'notification');
    }
    return false;
  };
}

/** Sets `$schema` on echo's inputSchema in tools/list results. */
function rewriteEchoSchema(dialect: string) {
  return rewrite('tools/list', (r) =>
    withResult(r, (result) => {
      for (const tool of Array.isArray(result.tools) ? result.tools : [])
        if (isObject(tool) && tool.name === 'echo' && isObject(tool.inputSchema))
          tool.inputSchema.$schema = dialect;
    }),
  );
}

const SESSION_DEFECTS = {
  /** initialize result without serverInfo. */
  'no-server-info': {
    encodeResponse: rewrite('initialize', (r) =>
      withResult(r, (result) => {
        delete result.serverInfo;
      }),
    ),
  },
  /** A supported requested version is answered with another one (the next older, or 2025-06-18). */
  'no-version-echo': {
    beforeRequest(request) {
      const params = request.params;
      if (request.method === 'initialize' && params && typeof params.protocolVersion === 'string') {
        params.protocolVersion = OLDER[params.protocolVersion] ?? params.protocolVersion;
      }
    },
  },
  /** Whatever version the client proposes is echoed, even one the server does not speak. */
  'echo-any-version': {
    encodeResponse: rewrite('initialize', (r, request) =>
      withResult(r, (result) => {
        result.protocolVersion = request.params?.protocolVersion;
      }),
    ),
  },
  /**
   * completion/complete with an argument value that is not a string ends the process: input the server
   * never validated takes it down (stdio; over HTTP it would take every session with it).
   */
  'completion-crash': {
    beforeRequest(request) {
      const argument = request.params?.argument;
      if (
        request.method === 'completion/complete' &&
        isObject(argument) &&
        typeof argument.value !== 'string'
      )
        process.exit(70);
    },
  },
  /**
   * A ping request goes out as soon as initialize arrives, before its response: the server speaks first
   * (the initialization phase must be the first interaction). A ping breaks nothing else.
   */
  'ping-before-initialize-answer': {
    onIncoming(value, sink) {
      if (isObject(value) && value.method === 'initialize' && 'id' in value)
        sink.write(
          JSON.stringify({ jsonrpc: '2.0', id: 'spec-breaker-early-ping', method: 'ping' }),
          'request',
        );
      return false;
    },
  },
  /** Every notification gets an error response (stdio; over HTTP notifications get 202 before this). */
  'answer-notifications': {
    onIncoming(value, sink) {
      if (isNotification(value)) {
        sink.write(
          encodeError(null, new RpcError(ErrorCode.InvalidRequest, 'this server answers notifications')),
          'response',
        );
      }
      return false;
    },
  },
  /** Every notification gets an error response whose id no client ever sent (stdio). */
  'answer-notifications-stray-id': {
    onIncoming(value, sink) {
      if (isNotification(value)) {
        strayIds++;
        sink.write(
          encodeError(
            `spec-breaker-stray-${strayIds}`,
            new RpcError(ErrorCode.InvalidRequest, 'this server answers notifications'),
          ),
          'response',
        );
      }
      return false;
    },
  },
  /**
   * The first request for a method the core does not know is answered (-32601) only when the next
   * notification arrives (stdio): a late reply to an earlier request, after the client's timeout. It is
   * no reply to the notification, and must not be taken for one.
   */
  'late-reply': {
    beforeRequest(request, signal) {
      if (heldOnce || CORE_METHODS.has(request.method)) return;
      heldOnce = true;
      return new Promise<void>((resolve, reject) => {
        releaseHeld = resolve;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
    onIncoming(value) {
      if (isNotification(value) && releaseHeld) {
        releaseHeld();
        releaseHeld = undefined;
      }
      return false;
    },
  },
  /** ping is answered with a non-empty result. */
  'ping-result': {
    encodeResponse: rewrite('ping', (r) =>
      withResult(r, (result) => {
        result.pong = true;
      }),
    ),
  },
  /** ping before initialize gets -32600 (stdio: one session per process). */
  'ping-needs-init': {
    beforeRequest(request) {
      if (request.method === 'initialize') initializeSeen = true;
      if (request.method === 'ping' && !initializeSeen) {
        throw new RpcError(ErrorCode.InvalidRequest, 'Server not initialized');
      }
    },
  },
  /** String ids made of digits are echoed as numbers ("7" → 7). */
  'numeric-string-ids': {
    encodeResponse(_request, response) {
      const id = response.id;
      return JSON.stringify(
        typeof id === 'string' && /^\d+$/.test(id) ? { ...response, id: Number(id) } : response,
      );
    },
  },
  /** An unknown method gets -32600 instead of -32601. */
  'wrong-not-found-code': {
    encodeResponse(_request, response) {
      const error = response.error;
      if (isObject(error) && error.code === ErrorCode.MethodNotFound) {
        return JSON.stringify({ ...response, error: { ...error, code: ErrorCode.InvalidRequest } });
      }
      return JSON.stringify(response);
    },
  },
  /** The process exits on a line that is not JSON (stdio). */
  'exit-on-parse-error': {
    onUnparsable() {
      process.exit(1);
    },
  },
  /** With more than 10 pings in flight, the extra ones are never answered. */
  'drop-concurrent': {
    beforeRequest(request, signal) {
      if (request.method !== 'ping') return;
      if (pingsInFlight >= CONCURRENT_LIMIT) return never(signal);
      pingsInFlight++;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          pingsInFlight--;
          resolve();
        }, 30),
      );
    },
  },
  /** A batch (2025-03-26) is refused with one -32600 error. */
  'no-batch': {
    onIncoming(value, sink) {
      if (!Array.isArray(value)) return false;
      sink.write(
        encodeError(null, new RpcError(ErrorCode.InvalidRequest, 'batches are not supported')),
        'response',
      );
      return true;
    },
  },
  /** Error objects lack their message. */
  'error-without-message': {
    encodeResponse(_request, response) {
      if (!isObject(response.error)) return JSON.stringify(response);
      const { message: _message, ...error } = response.error;
      return JSON.stringify({ ...response, error });
    },
  },
  /** Responses are pretty-printed over several lines. */
  'pretty-print': {
    encodeResponse: (_request, response) => JSON.stringify(response, null, 2),
  },
  /** Tools are offered but the tools capability is not declared. */
  'no-tools-capability': {
    encodeResponse: dropCapability('tools'),
  },
  /** An outputSchema that is no valid JSON Schema (a property of type "no-such-type"). */
  'invalid-output-schema': {
    encodeResponse: rewrite('tools/list', (r) =>
      withResult(r, (result) => {
        for (const tool of Array.isArray(result.tools) ? result.tools : []) {
          if (isObject(tool) && tool.outputSchema !== undefined) {
            tool.outputSchema = { type: 'object', properties: { text: { type: 'no-such-type' } } };
          }
        }
      }),
    ),
  },
  /** tools/call of an unknown tool is never answered. */
  'ignore-unknown-tool': {
    beforeRequest(request, signal) {
      if (request.method === 'tools/call' && !KNOWN_TOOLS.has(String(request.params?.name)))
        return never(signal);
    },
  },
  /** structuredContent breaks the tool's outputSchema (length becomes a string). */
  'invalid-structured-content': {
    encodeResponse: rewrite('tools/call', (r) =>
      withResult(r, (result) => {
        if (isObject(result.structuredContent)) result.structuredContent.length = 'not a number';
      }),
    ),
  },
  /** resources/list items lack their name. */
  'invalid-resources-list': {
    encodeResponse: rewrite('resources/list', (r) =>
      withResult(r, (result) => {
        for (const item of Array.isArray(result.resources) ? result.resources : [])
          if (isObject(item)) delete item.name;
      }),
    ),
  },
  /** resources/templates/list has no array. */
  'invalid-templates-list': {
    encodeResponse: rewrite('resources/templates/list', (r) =>
      withResult(r, (result) => {
        result.resourceTemplates = 'none';
      }),
    ),
  },
  /** resources/read has no contents array. */
  'invalid-resource-read': {
    encodeResponse: rewrite('resources/read', (r) =>
      withResult(r, (result) => {
        result.contents = 'none';
      }),
    ),
  },
  /** prompts/list items lack their name. */
  'invalid-prompts-list': {
    encodeResponse: rewrite('prompts/list', (r) =>
      withResult(r, (result) => {
        for (const item of Array.isArray(result.prompts) ? result.prompts : [])
          if (isObject(item)) delete item.name;
      }),
    ),
  },
  /** prompts/get has no messages array. */
  'invalid-prompt-get': {
    encodeResponse: rewrite('prompts/get', (r) =>
      withResult(r, (result) => {
        result.messages = 'none';
      }),
    ),
  },
  /** resources/list hands out a nextCursor that the server itself then rejects: pagination breaks. */
  'broken-resource-pages': {
    encodeResponse: rewrite('resources/list', (r, request) =>
      withResult(r, (result) => {
        if (request.params?.cursor === undefined) result.nextCursor = 'furfly-page-2';
      }),
    ),
  },
  /** Speaks only 2024-11-05: every initialize is answered with it (furfly vets later versions only). */
  'only-2024-11-05': {
    encodeResponse: rewrite('initialize', (r) =>
      withResult(r, (result) => {
        result.protocolVersion = '2024-11-05';
      }),
    ),
  },
  /**
   * Not a defect: a version the server does not know is answered with 2024-11-05, its oldest, which the
   * specification allows ("another protocol version it supports").
   */
  'unknown-version-gets-oldest': {
    encodeResponse: rewrite('initialize', (r, request) =>
      withResult(r, (result) => {
        if (!(String(request.params?.protocolVersion) in OLDER)) result.protocolVersion = '2024-11-05';
      }),
    ),
  },
  /**
   * Not a defect: errors a correct server may give (a backend down, an argument it refuses, no
   * templates method). The suite must not fail any MUST over them (false-alarm calibration).
   */
  'legitimate-errors': {
    encodeResponse(request, response) {
      const fail = (code: number, message: string) =>
        JSON.stringify({ jsonrpc: '2.0', id: response.id, error: { code, message } });
      if (request.method === 'resources/templates/list')
        return fail(ErrorCode.MethodNotFound, 'Method not found');
      if (request.method === 'resources/read' && 'result' in response)
        return fail(ErrorCode.InternalError, 'backend unavailable');
      if (request.method === 'prompts/get' && 'result' in response)
        return fail(ErrorCode.InvalidParams, 'argument must be a number');
      return JSON.stringify(response);
    },
  },
  // Utilities, capabilities and message rules of 2025-11-25 (legacy era).
  /** resources are served but the resources capability is not declared. */
  'no-resources-capability': {
    encodeResponse: dropCapability('resources'),
  },
  /** prompts are served but the prompts capability is not declared. */
  'no-prompts-capability': {
    encodeResponse: dropCapability('prompts'),
  },
  /** tools declares no listChanged, yet notifications/tools/list_changed comes after initialized. */
  'undeclared-tools-list-changed': {
    encodeResponse: rewrite('initialize', (r) =>
      withResult(r, (result) => {
        if (isObject(result.capabilities)) result.capabilities.tools = {};
      }),
    ),
    onIncoming: notifyOnInitialized('notifications/tools/list_changed'),
  },
  /** notifications/resources/list_changed after initialized, while resources declares listChanged: false. */
  'undeclared-resources-list-changed': {
    onIncoming: notifyOnInitialized('notifications/resources/list_changed'),
  },
  /** notifications/prompts/list_changed after initialized, while prompts declares listChanged: false. */
  'undeclared-prompts-list-changed': {
    onIncoming: notifyOnInitialized('notifications/prompts/list_changed'),
  },
  /** resources/subscribe gets -32601 although the resources capability declares subscribe: true. */
  'subscribe-fails': {
    beforeRequest(request) {
      if (request.method === 'resources/subscribe')
        throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: resources/subscribe');
    },
  },
  /** completion/complete is served but the completions capability is not declared. */
  'completion-undeclared': {
    encodeResponse: dropCapability('completions'),
  },
  /** completion/complete results carry `values: "none"` instead of an array. */
  'invalid-completion': {
    encodeResponse: rewrite('completion/complete', (r) =>
      withResult(r, (result) => {
        if (isObject(result.completion)) result.completion.values = 'none';
      }),
    ),
  },
  /** notifications/message after initialized, with no logging capability declared. */
  'log-without-capability': {
    encodeResponse: dropCapability('logging'),
    onIncoming: notifyOnInitialized('notifications/message', {
      level: 'info',
      logger: 'spec-breaker',
      data: 'logging without the logging capability',
    }),
  },
  /** Not a MUST: after every logging/setLevel a debug message comes, whatever level was set. */
  'ignore-log-level': {
    afterResponse(request, sink) {
      if (request.method !== 'logging/setLevel') return;
      const params = { level: 'debug', logger: 'spec-breaker', data: 'below the level that was set' };
      sink.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params }), 'notification');
    },
  },
  /** Progress notifications carry a token the client never sent (its own with a suffix). */
  'progress-unknown-token': {
    encodeNotification(message) {
      const params = isObject(message.params) ? message.params : {};
      const foreign = { ...params, progressToken: `${String(params.progressToken)}-spec-breaker` };
      return [JSON.stringify({ ...message, params: foreign })];
    },
  },
  /** Every progress notification is sent twice: the value does not increase. */
  'progress-not-increasing': {
    encodeNotification: (message) => [JSON.stringify(message), JSON.stringify(message)],
  },
  /** One more progress notification right after the response of a tools/call that had a token. */
  'progress-after-response': {
    afterResponse(request, sink) {
      const meta = isObject(request.params?._meta) ? request.params._meta : undefined;
      if (request.method !== 'tools/call' || meta?.progressToken === undefined) return;
      // A task-augmented call goes on after its response (2025-11-25 tasks): progress then is right.
      if (isObject(request.params?.task)) return;
      const params = { progressToken: meta.progressToken, progress: 1_000_000, message: 'after the end' };
      sink.write(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params }),
        'notification',
      );
    },
  },
  /** Not a MUST: notifications/cancelled is ignored, so a cancelled call is still answered. */
  'ignore-cancel': {
    onIncoming: (value) =>
      isNotification(value) && (value as { method: string }).method === 'notifications/cancelled',
  },
  /** The process exits on a notifications/cancelled for a request that is not running (stdio). */
  'stale-cancel-exits': {
    beforeRequest(request) {
      runningIds.add(JSON.stringify(request.id));
    },
    afterResponse(request) {
      runningIds.delete(JSON.stringify(request.id));
    },
    onIncoming(value) {
      if (!isNotification(value) || (value as { method: string }).method !== 'notifications/cancelled')
        return false;
      const params = (value as { params?: unknown }).params;
      const id = isObject(params) ? JSON.stringify(params.requestId) : undefined;
      if (id === undefined || !runningIds.has(id)) process.exit(1);
      return false;
    },
  },
  /** Not a MUST: a roots/list request right after the initialize response, before initialized. */
  'early-server-request': {
    afterResponse(request, sink) {
      if (request.method !== 'initialize') return;
      earlyRequests++;
      const message = { jsonrpc: '2.0', id: `spec-breaker-early-${earlyRequests}`, method: 'roots/list' };
      sink.write(JSON.stringify(message), 'request');
    },
  },
  /** After initialized, two ping requests with the same id. */
  'repeat-request-ids': {
    onIncoming(value, sink) {
      if (isNotification(value) && (value as { method: string }).method === 'notifications/initialized') {
        const ping = JSON.stringify({ jsonrpc: '2.0', id: 'spec-breaker-ping', method: 'ping' });
        sink.write(ping, 'request');
        sink.write(ping, 'request');
      }
      return false;
    },
  },
  /** tools/list results carry a `_meta` key whose name starts with a hyphen. */
  'bad-meta-key': {
    encodeResponse: rewrite('tools/list', (r) =>
      withResult(r, (result) => {
        result._meta = { 'com.example/-not-a-name': true };
      }),
    ),
  },
  /** After initialized, a notifications/message whose data holds a byte that is not UTF-8 (stdio). */
  'invalid-utf8': {
    onIncoming(value) {
      if (isNotification(value) && (value as { method: string }).method === 'notifications/initialized') {
        const head =
          '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"latin-1 caf';
        // 0xE9 alone is "é" in Latin-1 and an invalid byte sequence in UTF-8.
        process.stdout.write(Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from('"}}\n')]));
      }
      return false;
    },
  },
  /** echo's inputSchema declares `$schema: "draft-07"`, which is no URI. */
  'bad-schema-dialect': {
    encodeResponse: rewriteEchoSchema('draft-07'),
  },
  /** Not a defect furfly can prove: echo's inputSchema declares draft-04, a dialect furfly cannot check. */
  'unknown-schema-dialect': {
    encodeResponse: rewriteEchoSchema('http://json-schema.org/draft-04/schema#'),
  },
  /** Not a MUST: structuredContent comes without its serialised JSON in a text block. */
  'structured-without-text': {
    encodeResponse: rewrite('tools/call', (r) =>
      withResult(r, (result) => {
        if (isObject(result.structuredContent))
          result.content = [{ type: 'text', text: 'see structuredContent' }];
      }),
    ),
  },
  // Modern era (2026-07-28; use with --era modern or dual).
  /** server/discover is answered -32601 as if it did not exist. */
  'no-discover': {
    beforeRequest(request) {
      if (request.method === 'server/discover')
        throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: server/discover');
    },
  },
  /** Results carry no resultType. */
  'no-result-type': {
    encodeResponse: (_request, response) =>
      JSON.stringify(
        withResult(structuredClone(response), (result) => {
          delete result.resultType;
        }),
      ),
  },
  /** Cacheable results carry neither ttlMs nor cacheScope. */
  'no-cache-fields': {
    encodeResponse: (_request, response) =>
      JSON.stringify(
        withResult(structuredClone(response), (result) => {
          delete result.ttlMs;
          delete result.cacheScope;
        }),
      ),
  },
  /** A missing or unsupported protocol version gets -32602 without data.supported instead of -32022. */
  'wrong-version-error': {
    encodeResponse(_request, response) {
      const error = response.error;
      if (!isObject(error) || error.code !== ModernErrorCode.UnsupportedProtocolVersion)
        return JSON.stringify(response);
      return JSON.stringify({
        ...response,
        error: { code: ErrorCode.InvalidParams, message: 'Unsupported protocol version' },
      });
    },
  },
  /** An unsupported protocol version gets -32022 but without data.supported. */
  'version-error-no-supported': {
    encodeResponse(_request, response) {
      const error = response.error;
      if (!isObject(error) || error.code !== ModernErrorCode.UnsupportedProtocolVersion)
        return JSON.stringify(response);
      const data = isObject(error.data) ? { ...error.data } : {};
      delete data.supported;
      return JSON.stringify({ ...response, error: { ...error, data } });
    },
  },
  /** An unknown resource gets the legacy -32002 instead of -32602 (modern era). */
  'not-found-32002': {
    encodeResponse(request, response) {
      const error = response.error;
      if (request.method !== 'resources/read' || !isObject(error) || error.code !== ErrorCode.InvalidParams)
        return JSON.stringify(response);
      if (!String(error.message).startsWith('Resource not found')) return JSON.stringify(response);
      return JSON.stringify({ ...response, error: { ...error, code: ErrorCode.ResourceNotFound } });
    },
  },
  ...SHAPE_DEFECTS,
  ...SECRET_DEFECTS,
  ...MODERN_NEW_SESSION_DEFECTS,
  ...WIRE_DEFECTS,
  ...TASK_DEFECTS,
} satisfies Record<string, SessionHooks>;

const MODERN_DEFECTS = {
  /** Requests naming a protocol version it does not support are served anyway (modern era). */
  'ignored-version': { ignoreVersion: true },
  /** A request without `_meta` (or without its protocol version) gets -32022, not the malformed -32602. */
  'missing-meta-32022': { missingMetaAsUnsupported: true },
  /** ask_name sends elicitation/create as a JSON-RPC request to the client instead of MRTR. */
  'server-requests': { serverRequests: true },
  /** Every tools/call sends notifications/message, even when the request asked for no log level. */
  'log-without-level': { logWithoutLevel: true },
  /** subscriptions/listen notifications (the acknowledgement too) lack the subscription id. */
  'no-subscription-id': { untaggedSubscriptions: true },
  /** ask_name asks for an elicitation from a client that did not declare the capability (no -32021). */
  'no-capability-check': { skipCapabilityCheck: true },
  /** ask_name accepts any requestState on the retry: a tampered one is not refused. */
  'unverified-request-state': { trustRequestState: true },
} satisfies Record<string, ModernDefects>;

const HTTP_DEFECTS = {
  /** JSON replies are labelled application/json-rpc. */
  'json-content-type': { jsonContentType: 'application/json-rpc' },
  /** Every JSON reply, the initialize one included, is labelled text/plain. */
  'plain-content-type': { jsonContentType: 'text/plain' },
  /** Every SSE reply starts with an event whose data is not JSON (use with --reply sse). */
  'sse-non-json-event': { sseExtra: 'event: message\ndata: keep-alive\n\n' },
  /** Notifications get 200 instead of 202. */
  'notification-200': { notificationStatus: 200 },
  /** Unknown and deleted sessions get 400 instead of 404. */
  'unknown-session-400': { unknownSessionStatus: 400 },
  /** DELETE answers 204 but the session stays usable. */
  'delete-keeps-session': { keepDeletedSessions: true },
  /** Any MCP-Protocol-Version header is accepted. */
  'any-version-header': { acceptAnyVersionHeader: true },
  /** No Origin validation: DNS rebinding is possible. */
  'any-origin': { acceptAnyOrigin: true },
  /** GET is answered with 200 and a JSON body. */
  'get-json': { getAnswersJson: true },
  /** Session ids contain spaces. */
  'session-id-space': { sessionId: () => `furfly session ${randomUUID()}` },
  /** Modern era: headers contradicting the body (or missing) are not rejected with 400/-32020. */
  'header-mismatch-accepted': { acceptHeaderMismatch: true },
  /** Modern era: an unknown method is answered 200 (with -32601) instead of 404. */
  'unknown-method-not-404': { unknownMethodStatus: 200 },
  /** Modern-only server: GET gets 200 with an event stream and DELETE 204, instead of 405. */
  'get-delete-not-405': { modernGetDeleteAllowed: true },
  /** Modern era: every answer carries an Mcp-Session-Id header. */
  'modern-session-id': { modernSessionId: true },
  /** A POSTed JSON-RPC response gets 200 instead of 202. */
  'response-200': { responseStatus: 200 },
  /** A second GET stream of one session is refused with 409. */
  'single-get-stream': { singleGetStream: true },
  /** A copy of every response also goes on the open GET stream. */
  'get-stream-responses': { responsesOnGetStream: true },
  /** SSE event ids restart at 1 in every stream (use with --reply sse). */
  'event-ids-per-stream': { eventIdsPerStream: true },
  /** Last-Event-ID replays the events of every stream after it (use with --reply sse). */
  'replay-all-streams': { replayAllStreams: true },
  /** 2025-11-25 SSE replies have no priming event (use with --reply sse). */
  'no-priming-event': { noPrimingEvent: true },
  /** SSE events without ids (no resumption offered), hence no priming event either. */
  'no-event-ids': { noEventIds: true },
  /** No Host header validation. */
  'any-host': { acceptAnyHost: true },
  /** With --auth-token: no token gets 403 instead of 401. */
  'auth-403-without-token': { authForbiddenWithoutToken: true },
  /** With --auth-token: any bearer token is accepted. */
  'auth-any-token': { authAcceptAnyToken: true },
  /** With --auth-token: neither resource_metadata in the challenge nor a well-known metadata document. */
  'auth-no-resource-metadata': { authNoResourceMetadata: true },
  /** With --auth-token: the metadata names no authorization server. */
  'auth-metadata-no-servers': { authMetadataWithoutServers: true },
  /** With --auth-token: the 401 challenge has no scope. */
  'auth-no-scope': { authNoScopeHint: true },
  /** With --auth-token: insufficient_scope is answered 401 instead of 403. */
  'insufficient-scope-401': { insufficientScopeStatus: 401 },
  /** Modern era: a Base64-encoded Mcp-Name is compared undecoded, so it never matches the body. */
  'raw-mcp-name': { rawMcpName: true },
  ...MODERN_NEW_HTTP_DEFECTS,
} satisfies Record<string, HttpDefects>;

const DEFECTS = [
  ...Object.keys(SESSION_DEFECTS),
  ...Object.keys(MODERN_DEFECTS),
  ...Object.keys(HTTP_DEFECTS),
] as (keyof typeof SESSION_DEFECTS | keyof typeof MODERN_DEFECTS | keyof typeof HTTP_DEFECTS)[];

/** Defects of 2026-07-28 duties: meaningless in the legacy era, so they need --era modern or dual. */
const MODERN_ONLY = new Set<string>([
  'no-discover',
  'no-result-type',
  'no-cache-fields',
  'wrong-version-error',
  'version-error-no-supported',
  'not-found-32002',
  ...Object.keys(MODERN_DEFECTS),
  'undefined-reserved-code',
  'header-mismatch-accepted',
  'unknown-method-not-404',
  'get-delete-not-405',
  'modern-session-id',
  'raw-mcp-name',
  ...Object.keys(MODERN_NEW_SESSION_DEFECTS),
  ...Object.keys(MODERN_NEW_HTTP_DEFECTS),
]);

runServer({
  name: 'spec-breaker',
  usage: `  --break <defect>   the one requirement to break (required), one of:
                     ${DEFECTS.join('\n                     ')}`,
  options: { break: { type: 'string' } },
  setup: (flags, common) => {
    const defect = choiceFlag('break', flags.break, DEFECTS);
    if (!defect) throw new UsageError('--break is required');
    if (defect.startsWith('auth-') || defect === 'insufficient-scope-401') {
      if (common.authToken === undefined) throw new UsageError(`--break ${defect} needs --auth-token`);
    }
    if (MODERN_ONLY.has(defect) && common.era === 'legacy')
      throw new UsageError(`--break ${defect} breaks a 2026-07-28 duty: add --era modern or --era dual`);
    const definition = standardDefinition('spec-breaker', common);
    if (defect in SESSION_DEFECTS) {
      return {
        definition: { ...definition, hooks: SESSION_DEFECTS[defect as keyof typeof SESSION_DEFECTS] },
      };
    }
    if (defect in MODERN_DEFECTS) {
      const modernDefects = MODERN_DEFECTS[defect as keyof typeof MODERN_DEFECTS];
      return { definition: { ...definition, modernDefects } };
    }
    return { definition, http: { defects: HTTP_DEFECTS[defect as keyof typeof HTTP_DEFECTS] } };
  },
});
