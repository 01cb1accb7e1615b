/**
 * spec-breaker defects of encoded content and of what a server asks of the client (the checks of
 * conformance/server/server-features/content-formats{,-modern}.ts and
 * conformance/server/client-features/{client-requests,input-requests}.ts).
 * Each breaks one rule and nothing else, so each fails exactly one check.
 *
 * The client-request defects ask only a client that declared the capability concerned (the suite's
 * --call-tools conversation declares elicitation in form mode, sampling without tools, and roots), so
 * that what they break is the shape, not the capability: legacy servers send a request right after
 * `notifications/initialized`; modern ones change the input requests of `ask_name`'s InputRequiredResult.
 */
import { isObject, type JsonRpcRequest } from '../protocol.js';
import type { SessionHooks, Sink } from '../session.js';

type Json = Record<string, unknown>;

/** Rewrites the result of responses to `method`; other responses are left alone. */
function onResult(method: string, change: (result: Json, request: JsonRpcRequest) => void) {
  return (request: JsonRpcRequest, response: Json): string => {
    if (request.method !== method || !isObject(response.result)) return JSON.stringify(response);
    const copy = structuredClone(response) as Json & { result: Json };
    change(copy.result, request);
    return JSON.stringify(copy);
  };
}

/** A prompt result with one more message. */
const extraPromptMessage = (content: Json) =>
  onResult('prompts/get', (result) => {
    if (Array.isArray(result.messages)) result.messages.push({ role: 'user', content });
  });

const WEATHER_TOOL = { name: 'get_weather', inputSchema: { type: 'object', properties: {} } };
const ASK = { role: 'user', content: { type: 'text', text: 'What is the weather in Lisbon?' } };
const TOOL_USE = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: {} }],
};

/**
 * The request a defect sends: legacy, as a JSON-RPC request right after `notifications/initialized` to
 * a client whose initialize declared `capability`; modern, as one more input request of every
 * InputRequiredResult (or, with `replaceKey`, instead of that input request).
 */
function askingDefect(
  capability: 'elicitation' | 'sampling',
  method: string,
  params: Json,
  options: { modern: boolean; replaceKey?: string } = { modern: true },
): SessionHooks {
  // stdio: one client per process, so the declared capabilities of this process's initialize suffice.
  let declared = false;
  let sent = 0;
  const hooks: SessionHooks = {
    onIncoming(value: unknown, sink: Sink): boolean {
      if (!isObject(value)) return false;
      if (value.method === 'initialize' && isObject(value.params)) {
        const caps = value.params.capabilities;
        declared = isObject(caps) && isObject(caps[capability]);
      }
      if (value.method === 'notifications/initialized' && !('id' in value) && declared) {
        sent++;
        const request = { jsonrpc: '2.0', id: `spec-breaker-${capability}-${sent}`, method, params };
        sink.write(JSON.stringify(request), 'request');
      }
      return false;
    },
  };
  if (options.modern) {
    hooks.encodeResponse = onResult('tools/call', (result) => {
      if (result.resultType !== 'input_required' || !isObject(result.inputRequests)) return;
      result.inputRequests[options.replaceKey ?? `spec_breaker_${capability}`] = { method, params };
    });
  }
  return hooks;
}

export const SHAPE_DEFECTS = {
  /** Prompt results carry an image whose data is not base64. */
  'prompt-image-not-base64': {
    encodeResponse: extraPromptMessage({ type: 'image', data: 'this is not base64!', mimeType: 'image/png' }),
  },
  /** Prompt results carry audio whose MIME type is `audio` (no subtype). */
  'prompt-audio-bad-mime': {
    encodeResponse: extraPromptMessage({ type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio' }),
  },
  /** resources/read results carry one more content, a blob that is not base64. */
  'resource-blob-not-base64': {
    encodeResponse: onResult('resources/read', (result, request) => {
      if (Array.isArray(result.contents))
        result.contents.push({
          uri: request.params?.uri,
          mimeType: 'application/octet-stream',
          blob: 'not*base64',
        });
    }),
  },
  /** resources/list lists one more resource, whose URI has a space (not RFC 3986). */
  'resource-uri-space': {
    encodeResponse: onResult('resources/list', (result) => {
      if (Array.isArray(result.resources))
        result.resources.push({ uri: 'furfly://test/with space', name: 'spaced' });
    }),
  },
  /** resources/read of a URI with a space is served (as the readme) instead of refused. */
  'serve-malformed-uri': {
    beforeRequest(request) {
      const params = request.params;
      if (
        request.method === 'resources/read' &&
        params &&
        typeof params.uri === 'string' &&
        params.uri.includes(' ')
      )
        params.uri = 'furfly://test/readme';
    },
  },
  /** A URL-mode elicitation to a client that declared form mode only (modern: ask_name's request). */
  'elicit-undeclared-mode': askingDefect(
    'elicitation',
    'elicitation/create',
    {
      mode: 'url',
      message: 'Sign in to continue',
      url: 'https://example.com/sign-in',
      elicitationId: 'spec-breaker-elicitation',
    },
    { modern: true, replaceKey: 'user_name' },
  ),
  /** Legacy: a form-mode elicitation without requestedSchema. */
  'elicit-no-schema': askingDefect(
    'elicitation',
    'elicitation/create',
    { mode: 'form', message: 'What is your name?' },
    { modern: false },
  ),
  /** A form-mode elicitation that asks for a password (modern: one more input request of ask_name). */
  'elicit-form-password': askingDefect(
    'elicitation',
    'elicitation/create',
    {
      mode: 'form',
      message: 'Sign in to the weather service',
      requestedSchema: {
        type: 'object',
        properties: { password: { type: 'string', title: 'Password' } },
        required: ['password'],
      },
    },
    { modern: true },
  ),
  /** Sampling with tools to a client that declared sampling without `tools`. */
  'sampling-undeclared-tools': askingDefect('sampling', 'sampling/createMessage', {
    messages: [ASK],
    maxTokens: 100,
    tools: [WEATHER_TOOL],
  }),
  /** Sampling messages where a tool use is followed by plain text instead of tool results. */
  'sampling-unbalanced-tool-use': askingDefect('sampling', 'sampling/createMessage', {
    messages: [ASK, TOOL_USE, { role: 'user', content: { type: 'text', text: 'Never mind.' } }],
    maxTokens: 100,
  }),
  /** Sampling messages where the tool result names another tool use id. */
  'sampling-tool-result-mismatch': askingDefect('sampling', 'sampling/createMessage', {
    messages: [
      ASK,
      TOOL_USE,
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'call-2', content: [{ type: 'text', text: 'Sunny' }] }],
      },
    ],
    maxTokens: 100,
  }),
  /** resources/read of a URI with a space gets -32042 (URL elicitation required) naming no elicitation. */
  'url-elicitation-error-misused': {
    encodeResponse(request: JsonRpcRequest, response: Json): string {
      const uri = request.params?.uri;
      if (
        request.method !== 'resources/read' ||
        !isObject(response.error) ||
        typeof uri !== 'string' ||
        !uri.includes(' ')
      )
        return JSON.stringify(response);
      const error = { code: -32042, message: 'This request requires more information.', data: {} };
      return JSON.stringify({ ...response, error });
    },
  },
  /** Legacy, stdio: right after initialized, a notifications/cancelled for a request it never sent. */
  'cancel-unknown-request': {
    onIncoming(value: unknown, sink: Sink): boolean {
      if (isObject(value) && value.method === 'notifications/initialized' && !('id' in value)) {
        const params = { requestId: 'spec-breaker-never-sent', reason: 'spec-breaker' };
        sink.write(
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params }),
          'notification',
        );
      }
      return false;
    },
  },
} satisfies Record<string, SessionHooks>;
