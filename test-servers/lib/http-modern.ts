/**
 * Streamable HTTP in the 2026-07-28 shape: every POST is one self-contained request, served by its own
 * stateless Session (closing the response stream cancels it), with no session id, no GET stream and no
 * event ids. Before the body is acted on, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers of `x-mcp-header` tool parameters must agree with it (400 + -32020 otherwise).
 * Modern errors get their HTTP status: 400 for -32020/-32021/-32022 and malformed `_meta`, 404 for an
 * unknown method.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpDefects, type HttpOptions, header, startEventStream } from './http-common.js';
import {
  decodeHeaderValue,
  type Era,
  hasModernMeta,
  httpStatusOf,
  META,
  MODERN_VERSION,
  ModernErrorCode,
  requestMeta,
} from './modern.js';
import { ErrorCode, isObject, isRequestId } from './protocol.js';
import { type ServerDefinition, Session, type Sink } from './session.js';

/** Keep-alive comment interval on long-lived (subscriptions/listen) streams. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Whether a POST body goes to the modern front. A modern-only server takes everything; a dual-era one
 * takes requests with modern `_meta`, and session-less requests other than `initialize` (which then
 * get -32022, the signal a dual-era client recognises), leaving `initialize` and session traffic legacy.
 */
export function routesModern(era: Era, value: unknown, sessionId: string | undefined): boolean {
  if (era === 'modern') return true;
  if (era === 'legacy' || !isObject(value)) return false;
  if (hasModernMeta(value.params)) return true;
  if (value.method === 'initialize' || sessionId !== undefined) return false;
  return typeof value.method === 'string' && 'id' in value;
}

export async function handleModernPost(
  req: IncomingMessage,
  res: ServerResponse,
  value: unknown,
  definition: ServerDefinition,
  options: HttpOptions,
  defects: HttpDefects,
): Promise<void> {
  if (Array.isArray(value)) {
    sendRpcError(res, 400, null, ErrorCode.InvalidRequest, 'Invalid Request: batches are not supported');
    return;
  }
  const isRequest = isObject(value) && typeof value.method === 'string' && isRequestId(value.id);
  if (!isRequest) {
    if (isObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string' && !('id' in value)) {
      // A notification: nothing in the modern core needs one over HTTP (closing a stream cancels).
      res.writeHead(defects.notificationStatus ?? 202).end();
      return;
    }
    const id = isObject(value) && isRequestId(value.id) ? value.id : null;
    sendRpcError(res, 400, id, ErrorCode.InvalidRequest, 'Invalid Request: not a single JSON-RPC request');
    return;
  }
  const request = value as { id: string | number; method: string; params?: unknown };
  const meta = requestMeta(request.params);
  const versionServed =
    meta?.[META.protocolVersion] === MODERN_VERSION || definition.modernDefects?.ignoreVersion === true;
  // An unsupported or missing version is the Session's -32022 (with 400); only a request this server
  // would serve has its headers checked.
  if (versionServed && !defects.acceptHeaderMismatch) {
    const mismatch = headerMismatch(req, request, definition, defects.rawMcpName === true, defects);
    if (mismatch) {
      sendRpcError(res, 400, request.id, ModernErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
      return;
    }
  }
  // A malformed `_meta` (no usable version, no clientCapabilities object) is a 400 whatever its code.
  const malformedMeta = !versionServed || !isObject(meta?.[META.clientCapabilities]);
  // A required field left out (not merely an unsupported version): what the malformed-meta defect answers 200.
  const missingField =
    meta?.[META.protocolVersion] === undefined || !isObject(meta?.[META.clientCapabilities]);

  if (defects.modernSessionId) res.setHeader('mcp-session-id', randomUUID());
  const session = new Session(definition, { write: () => {} });
  const mode = request.method === 'subscriptions/listen' ? 'sse' : options.reply;
  const reply = createModernReply(
    res,
    mode,
    (code) => {
      if (missingField && defects.malformedMetaStatus !== undefined) return defects.malformedMetaStatus;
      if (malformedMeta && code === ErrorCode.InvalidParams) return 400;
      if (
        code === ModernErrorCode.MissingRequiredClientCapability &&
        defects.missingCapabilityStatus !== undefined
      )
        return defects.missingCapabilityStatus;
      if (code === ErrorCode.MethodNotFound && defects.unknownMethodStatus !== undefined)
        return defects.unknownMethodStatus;
      return httpStatusOf(code);
    },
    defects.jsonContentType,
  );
  // The client closing its response stream is the modern cancellation signal.
  res.on('close', () => {
    if (!res.writableFinished) session.close();
  });
  await session.receive(value, reply.sink);
  reply.finish();
}

/** Why the request headers contradict the body, or undefined when they agree. */
export function headerMismatch(
  req: IncomingMessage,
  request: { method: string; params?: unknown },
  definition: ServerDefinition,
  rawName = false,
  defects: HttpDefects = {},
): string | undefined {
  const params = isObject(request.params) ? request.params : {};
  const header = defects.caseSensitiveHeaderNames ? caseSensitiveHeader : anyCaseHeader;
  const version = header(req, 'mcp-protocol-version');
  const bodyVersion = requestMeta(params)?.[META.protocolVersion];
  if (version === undefined && !defects.acceptMissingVersionHeader)
    return 'the MCP-Protocol-Version header is required';
  if (version !== undefined && version !== bodyVersion)
    return `MCP-Protocol-Version header ${version} does not match _meta version ${String(bodyVersion)}`;
  const method = header(req, 'mcp-method');
  if (method === undefined) return 'the Mcp-Method header is required';
  if (method !== request.method)
    return `Mcp-Method header ${method} does not match body method ${request.method}`;
  const nameField =
    request.method === 'resources/read'
      ? 'uri'
      : request.method === 'tools/call' || request.method === 'prompts/get'
        ? 'name'
        : undefined;
  if (nameField !== undefined) {
    const raw = header(req, 'mcp-name');
    if (raw === undefined) return 'the Mcp-Name header is required';
    const name = rawName ? raw : decodeHeaderValue(raw, defects.partialSentinelIsBase64 === true);
    if (name === undefined) return 'the Mcp-Name header is not valid Base64 of UTF-8';
    if (name !== params[nameField])
      return `Mcp-Name header ${JSON.stringify(name)} does not match params.${nameField}`;
  }
  if (request.method === 'tools/call')
    return paramHeaderMismatch(req, params, definition, header, defects.acceptInvalidParamChars === true);
  return undefined;
}

type HeaderLookup = (req: IncomingMessage, name: string) => string | undefined;

/** A header by name, in any case (Node lowercases the names it parses). */
const anyCaseHeader: HeaderLookup = header;

/** The canonical spellings the case-sensitive-headers defect knows; any other case is not found. */
const CANONICAL: Record<string, string> = {
  'mcp-protocol-version': 'MCP-Protocol-Version',
  'mcp-method': 'Mcp-Method',
  'mcp-name': 'Mcp-Name',
};

/** The defect: a header only under its canonical or all-lowercase name, compared case-sensitively. */
const caseSensitiveHeader: HeaderLookup = (req, name) => {
  const spellings = new Set([name, CANONICAL[name] ?? name]);
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (spellings.has(req.rawHeaders[i]!)) return req.rawHeaders[i + 1];
  }
  return undefined;
};

/** Visible ASCII, space and tab: what a header value may hold (streamable-http, Value Encoding). */
function hasInvalidHeaderChars(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return true;
  }
  return false;
}

/** Checks `Mcp-Param-{Name}` against every argument of the called tool annotated `x-mcp-header`. */
function paramHeaderMismatch(
  req: IncomingMessage,
  params: Record<string, unknown>,
  definition: ServerDefinition,
  header: HeaderLookup,
  acceptInvalidChars: boolean,
): string | undefined {
  const tool = definition.tools.find((candidate) => candidate.name === params.name);
  if (!tool) return undefined;
  const args = isObject(params.arguments) ? params.arguments : {};
  for (const [property, schema] of Object.entries(tool.inputSchema.properties)) {
    const headerName = schema['x-mcp-header'];
    if (headerName === undefined) continue;
    const raw = header(req, `mcp-param-${headerName.toLowerCase()}`);
    const value = args[property];
    if (value === undefined || value === null) {
      if (raw !== undefined) return `Mcp-Param-${headerName} is present but arguments.${property} is not`;
      continue;
    }
    if (raw === undefined) return `the Mcp-Param-${headerName} header is required`;
    if (!acceptInvalidChars && hasInvalidHeaderChars(raw))
      return `the Mcp-Param-${headerName} header contains characters outside visible ASCII`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `the Mcp-Param-${headerName} header is not valid Base64 of UTF-8`;
    const same =
      typeof value === 'number'
        ? decoded.trim() !== '' && Number(decoded) === value
        : typeof value === 'boolean'
          ? decoded === String(value)
          : decoded === value;
    if (!same) return `Mcp-Param-${headerName} header does not match arguments.${property}`;
  }
  return undefined;
}

/**
 * The answer to one modern POST: JSON, or an SSE stream opened at the first notification. A response
 * that comes first is sent as JSON with its status, so errors keep their 400/404 even in SSE mode.
 */
function createModernReply(
  res: ServerResponse,
  mode: 'json' | 'sse',
  statusOf: (code: unknown) => number,
  /** The Content-Type of a JSON reply (spec-breaker json-content-type mislabels it in both eras). */
  jsonContentType = 'application/json',
) {
  let streaming = false;
  let keepAlive: NodeJS.Timeout | undefined;
  const responses: string[] = [];
  const startStream = (): void => {
    if (streaming) return;
    streaming = true;
    startEventStream(res, { 'x-accel-buffering': 'no' });
    keepAlive = setInterval(() => {
      if (!res.writableEnded && !res.destroyed) res.write(':\n\n');
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    res.on('close', () => clearInterval(keepAlive));
  };
  const writeEvent = (text: string): void => {
    if (!res.writableEnded && !res.destroyed) res.write(`event: message\ndata: ${text}\n\n`);
  };
  const sink: Sink = {
    write(text, kind) {
      if (kind === 'response') {
        if (streaming) writeEvent(text);
        else responses.push(text);
      } else if (mode === 'sse' || kind === 'request') {
        startStream();
        writeEvent(text);
      }
      // JSON mode has nowhere to put a notification: it is dropped, as the spec allows.
    },
  };
  return {
    sink,
    finish(): void {
      if (keepAlive) clearInterval(keepAlive);
      if (res.writableEnded || res.destroyed) return;
      if (streaming) {
        res.end();
        return;
      }
      if (responses.length === 0) {
        // Cancelled before any answer (the client has gone); nothing more to say.
        res.writeHead(202).end();
        return;
      }
      let code: unknown;
      try {
        const parsed = JSON.parse(responses[0]!) as { error?: { code?: unknown } };
        code = parsed.error?.code;
      } catch {
        code = undefined;
      }
      res.writeHead(code === undefined ? 200 : statusOf(code), { 'content-type': jsonContentType });
      res.end(responses.join('\n'));
    },
  };
}

function sendRpcError(
  res: ServerResponse,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}
