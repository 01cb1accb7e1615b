/**
 * The modern era (2026-07-28) as the suite speaks it: every request carries the per-request `_meta`
 * (protocol version, client info, client capabilities; basic/index "Per-request protocol fields"), and
 * over HTTP the request metadata headers mirrored from the body (the channel adds those, see
 * HttpChannel.modern). Checks that want to break a rule on purpose replace `_meta` or add headers.
 */

import { requestMeta } from '../../../src/mcp/era/modern.js';
import { checkToolHeaders, parameterHeaders } from '../../../src/mcp/era/tool-headers.js';
import { LATEST_MODERN_PROTOCOL_VERSION } from '../../../src/protocol/versions.js';
import { HttpChannel } from '../probe/channel.js';
import { CLIENT_INFO } from './client-info.js';
import type { JsonObject, Reply, RequestId, Session } from './session.js';

/** What the suite declares when it means to answer input requests (elicitation, sampling, roots). */
export const FULL_CLIENT_CAPABILITIES: JsonObject = {
  elicitation: { form: {} },
  sampling: {},
  roots: {},
};

export interface ModernRequestOptions {
  /** The declared client capabilities; none by default (the least a client may declare). */
  capabilities?: JsonObject;
  logLevel?: string;
  /** Replaces the whole `_meta` (to leave out or break a required field). */
  meta?: JsonObject;
  /** HTTP only: headers added to (or replacing) the mirrored ones of this POST. */
  headers?: Record<string, string>;
  /** The tool's inputSchema, so its `x-mcp-header` parameters travel as `Mcp-Param-*` headers too. */
  inputSchema?: unknown;
  timeoutMs?: number;
  id?: RequestId;
}

/**
 * Makes `session` speak the modern era by default: every request it sends gets the per-request `_meta`
 * (merged under any `_meta` the caller gave), and over HTTP the mirrored headers. Checks written for
 * both eras use such a session exactly as they use a legacy one.
 */
export function stampModern(session: Session, version: string): Session {
  if (session.channel instanceof HttpChannel) session.channel.modern = true;
  const base = requestMeta(version, CLIENT_INFO, {});
  // 2026-07-28 has no `ping`: the sentinel of checks written for both eras is `server/discover`.
  session.sentinelMethod = 'server/discover';
  session.stamp = (_method, params) => {
    const own =
      params !== undefined && typeof params._meta === 'object' && params._meta !== null ? params._meta : {};
    return { ...(params ?? {}), _meta: { ...base, ...own } };
  };
  return session;
}

export class ModernSession {
  constructor(
    readonly session: Session,
    readonly version: string = LATEST_MODERN_PROTOCOL_VERSION,
  ) {
    if (session.channel instanceof HttpChannel) session.channel.modern = true;
  }

  /** The per-request `_meta` a conforming client sends under this session's version. */
  meta(capabilities: JsonObject = {}, logLevel?: string): JsonObject {
    return requestMeta(this.version, CLIENT_INFO, capabilities, logLevel);
  }

  /** A modern request: `params._meta` filled in (merged under any `_meta` the caller gave). */
  request(method: string, params: JsonObject = {}, options: ModernRequestOptions = {}): Promise<Reply> {
    const ownMeta = typeof params._meta === 'object' && params._meta !== null ? params._meta : {};
    const meta = options.meta ?? { ...this.meta(options.capabilities, options.logLevel), ...ownMeta };
    const id = options.id ?? this.session.nextId();
    const headers = { ...this.parameterHeadersOf(method, params, options.inputSchema), ...options.headers };
    const channel = this.session.channel;
    if (channel instanceof HttpChannel && Object.keys(headers).length > 0)
      channel.headersFor.set(id, headers);
    return this.session.requestUntyped(
      method,
      { ...params, _meta: meta },
      { id, unstamped: true, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
    );
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.session.notify(method, params);
  }

  close(): Promise<void> {
    return this.session.close();
  }

  private parameterHeadersOf(
    method: string,
    params: JsonObject,
    inputSchema: unknown,
  ): Record<string, string> {
    if (method !== 'tools/call' || inputSchema === undefined) return {};
    const check = checkToolHeaders(inputSchema);
    return check.ok ? parameterHeaders(check.parameters, params.arguments) : {};
  }
}
