/**
 * Reading one session's log as a conversation: which requests the suite sent (and with which progress
 * token), where each was answered, and what the server sent on its own. The whole-run checks of
 * progress, logging, capabilities and server requests judge each session apart with these.
 */
import { META_KEYS } from '../../../src/protocol/versions.js';
import { isObject, isResponse, type JsonObject, type LoggedMessage } from './session.js';

/** Keeps 1 and "1" apart, as JSON-RPC does. */
export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

export interface Inbound {
  /** Position in the session log. */
  at: number;
  message: JsonObject;
}

/** Messages the server sent that are not responses (notifications and requests), with their positions. */
export function serverMessages(log: readonly LoggedMessage[]): Inbound[] {
  const found: Inbound[] = [];
  log.forEach((entry, at) => {
    if (entry.direction !== 'in') return;
    const messages: unknown[] = Array.isArray(entry.message) ? entry.message : [entry.message];
    // A message with a method is a request or a notification, never a response.
    for (const message of messages)
      if (isObject(message) && typeof message.method === 'string') found.push({ at, message });
  });
  return found;
}

/** Server-initiated requests (a method and an id). */
export function serverRequests(log: readonly LoggedMessage[]): Inbound[] {
  return serverMessages(log).filter((entry) => 'id' in entry.message);
}

export function notificationsOf(log: readonly LoggedMessage[], method: string): Inbound[] {
  return serverMessages(log).filter((entry) => !('id' in entry.message) && entry.message.method === method);
}

/** Where the response to the request with this id arrived, or null. */
export function responseAt(log: readonly LoggedMessage[], id: unknown): number | null {
  const key = idKey(id);
  for (const [at, entry] of log.entries()) {
    if (entry.direction !== 'in') continue;
    const messages = Array.isArray(entry.message) ? entry.message : [entry.message];
    if (messages.some((m) => isResponse(m) && idKey(m.id) === key)) return at;
  }
  return null;
}

/** Where the suite sent its first message with this method, or null. */
export function sentAt(log: readonly LoggedMessage[], method: string): number | null {
  const at = log.findIndex(
    (entry) => entry.direction === 'out' && isObject(entry.message) && entry.message.method === method,
  );
  return at === -1 ? null : at;
}

/** The capabilities of the first initialize result in this log and where it arrived, or null. */
export function declaredCapabilities(
  log: readonly LoggedMessage[],
): { at: number; capabilities: JsonObject } | null {
  const request = log.find(
    (entry) => entry.direction === 'out' && isObject(entry.message) && entry.message.method === 'initialize',
  );
  if (!request || !isObject(request.message)) return null;
  const at = responseAt(log, request.message.id);
  if (at === null) return null;
  const response = log[at]?.message;
  if (!isObject(response) || !isObject(response.result)) return null;
  const capabilities = response.result.capabilities;
  return { at, capabilities: isObject(capabilities) ? capabilities : {} };
}

/**
 * Whether the suite asked for log messages in this log: a request carrying
 * `_meta["io.modelcontextprotocol/logLevel"]` (2026-07-28's per-request log level).
 */
export function askedForLogs(
  log: readonly LoggedMessage[],
  ignore: (message: JsonObject) => boolean = () => false,
): boolean {
  return log.some((entry) => {
    if (entry.direction !== 'out' || !isObject(entry.message) || ignore(entry.message)) return false;
    const params = entry.message.params;
    const meta = isObject(params) ? params._meta : undefined;
    return isObject(meta) && META_KEYS.logLevel in meta;
  });
}

export interface TokenRequest {
  /** Where the request went out. */
  at: number;
  id: unknown;
}

/** Requests the suite sent with `params._meta.progressToken`, by token key. */
export function progressTokens(log: readonly LoggedMessage[]): Map<string, TokenRequest> {
  const tokens = new Map<string, TokenRequest>();
  log.forEach((entry, at) => {
    if (entry.direction !== 'out' || !isObject(entry.message)) return;
    const params = entry.message.params;
    const meta = isObject(params) ? params._meta : undefined;
    if (isObject(meta) && meta.progressToken !== undefined)
      tokens.set(idKey(meta.progressToken), { at, id: entry.message.id });
  });
  return tokens;
}
