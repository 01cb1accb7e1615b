/**
 * What both Streamable HTTP fronts of the test servers share (the legacy one in http.ts and the modern one
 * in http-modern.ts): their options, the spec-breaker's transport defects, and two small helpers. A leaf,
 * so neither front imports the other.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HttpOptions {
  port: number;
  reply: 'json' | 'sse';
  /** Offer the GET stream; false answers GET with 405. */
  getStream: boolean;
  listChangedAfterMs?: number;
  /** Runs right before each list_changed notification is sent (the tool list may change here). */
  beforeListChanged?: () => void;
  ignoreSignals: boolean;
  /** Transport defects of the spec-breaker server; absent for every other server. */
  defects?: HttpDefects;
  /**
   * `--auth-token T`: every request to the endpoint needs `Authorization: Bearer T` (a static token
   * stands in for an OAuth access token); the server names its RFC 9728 protected resource metadata.
   */
  auth?: { token: string };
  /**
   * Each session serves this many requests after initialize; the next request naming it gets 404 and
   * the session is forgotten (the client must start a new one).
   */
  dropSessionAfter?: number;
  /**
   * SSE replies end right after a priming event (an id and `retry: closeStreamsEarlyRetryMs`); the
   * messages of the request are kept and served on a GET that resumes with `Last-Event-ID`.
   */
  closeStreamsEarly?: boolean;
  closeStreamsEarlyRetryMs?: number;
}

/** One switch per Streamable HTTP rule the spec-breaker server can break. */
export interface HttpDefects {
  /** Content-Type of JSON replies instead of application/json. */
  jsonContentType?: string;
  /** Raw text written into every SSE reply stream before its first message (e.g. a non-JSON event). */
  sseExtra?: string;
  /** Status for accepted notifications instead of 202. */
  notificationStatus?: number;
  /** Status for an unknown or deleted session instead of 404. */
  unknownSessionStatus?: number;
  /** DELETE answers 204 but the session lives on. */
  keepDeletedSessions?: boolean;
  /** Accept any MCP-Protocol-Version header. */
  acceptAnyVersionHeader?: boolean;
  /** No Origin validation. */
  acceptAnyOrigin?: boolean;
  /** GET answered with 200 and a JSON body instead of an event stream or 405. */
  getAnswersJson?: boolean;
  /** Session ids of this shape instead of a UUID. */
  sessionId?: () => string;
  /** Modern era: Mcp-Method, Mcp-Name, MCP-Protocol-Version and Mcp-Param-* are never checked. */
  acceptHeaderMismatch?: boolean;
  /** Modern era: status for an unknown method instead of 404. */
  unknownMethodStatus?: number;
  /** Modern-only server: GET opens an (empty) event stream and DELETE answers 204, instead of 405. */
  modernGetDeleteAllowed?: boolean;
  /** Modern era: every response carries an `Mcp-Session-Id` header. */
  modernSessionId?: boolean;
  /** Status for an accepted POSTed JSON-RPC response instead of 202. */
  responseStatus?: number;
  /** A second GET stream of one session is refused with 409. */
  singleGetStream?: boolean;
  /** A copy of every response also goes on the session's open GET stream. */
  responsesOnGetStream?: boolean;
  /** SSE event ids count from 1 in every stream (so they repeat across the streams of a session). */
  eventIdsPerStream?: boolean;
  /** Resumption replays the events of every stream of the session after Last-Event-ID, not only its own. */
  replayAllStreams?: boolean;
  /** 2025-11-25 SSE replies start without the priming event (an id and empty data). */
  noPrimingEvent?: boolean;
  /** SSE events carry no ids at all (no resumption), and so no priming event either. */
  noEventIds?: boolean;
  /** No Host header validation. */
  acceptAnyHost?: boolean;
  /** With --auth-token: a request without a token gets 403 instead of 401. */
  authForbiddenWithoutToken?: boolean;
  /** With --auth-token: any bearer token is accepted. */
  authAcceptAnyToken?: boolean;
  /** With --auth-token: no `resource_metadata` in WWW-Authenticate and no well-known metadata document. */
  authNoResourceMetadata?: boolean;
  /** With --auth-token: the protected resource metadata lacks `authorization_servers`. */
  authMetadataWithoutServers?: boolean;
  /** With --auth-token: the 401 challenge carries no `scope`. */
  authNoScopeHint?: boolean;
  /** With --auth-token: insufficient scope is answered 401 instead of 403. */
  insufficientScopeStatus?: number;
  /** Modern era: Mcp-Name is compared with the body as sent, without decoding the Base64 sentinel. */
  rawMcpName?: boolean;
  /** Modern era: a POST without MCP-Protocol-Version is served (the header is checked only when present). */
  acceptMissingVersionHeader?: boolean;
  /** Modern era: the metadata headers are looked up only under their canonical or lowercase names. */
  caseSensitiveHeaderNames?: boolean;
  /** Modern era: the status of the error to a request whose `_meta` lacks a required field. */
  malformedMetaStatus?: number;
  /** Modern era: the status of a -32021 (MissingRequiredClientCapability) error, 400 otherwise. */
  missingCapabilityStatus?: number;
  /** Modern era: an Mcp-Param-{Name} value outside visible ASCII, space and tab is taken as it is. */
  acceptInvalidParamChars?: boolean;
  /** Modern era: an Mcp-Name that starts `=?base64?` is decoded as Base64 even without the closing `?=`. */
  partialSentinelIsBase64?: boolean;
}

export function startEventStream(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...extra,
  });
  res.flushHeaders();
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
