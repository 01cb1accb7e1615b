/**
 * The errors 2026-07-28 defines, worded for the user: what happened at which server, and what to do.
 */
import type { RpcRemoteError } from '../../jsonrpc/errors.js';
import { supportedOf } from './detect.js';
import { MODERN_ERROR } from './modern.js';

/** A sentence for a recognised modern error, or undefined for any other error. */
export function describeModernError(
  server: string,
  error: RpcRemoteError,
  version: string | undefined,
): string | undefined {
  const remote = JSON.stringify(error.remoteMessage.slice(0, 200));
  switch (error.code) {
    case MODERN_ERROR.headerMismatch:
      return (
        `server "${server}" rejected the request's HTTP headers as not matching its body (-32020 HeaderMismatch: ${remote}); ` +
        'a proxy may be rewriting Mcp-* headers, or the tool list is stale: reconnect, and report it if it persists'
      );
    case MODERN_ERROR.missingRequiredClientCapability: {
      const data = error.data as { requiredCapabilities?: unknown } | undefined;
      const required =
        data && typeof data === 'object' ? JSON.stringify(data.requiredCapabilities ?? {}) : '{}';
      return (
        `server "${server}" needs client capabilities furfly did not declare for this request (-32021: ${required}); ` +
        'this request needs a feature (e.g. elicitation, sampling or roots) that this furfly session does not offer'
      );
    }
    case MODERN_ERROR.unsupportedProtocolVersion: {
      const supported = supportedOf(error.data);
      const requested = (error.data as { requested?: unknown } | undefined)?.requested;
      const asked = version ?? (typeof requested === 'string' ? requested.slice(0, 40) : undefined);
      if (asked !== undefined && supported.includes(asked)) {
        return (
          `server "${server}" refused protocol version ${asked} (-32022) although it names that version among the ones it supports ` +
          `(${supported.join(', ')}), also when furfly asked again; the server contradicts itself: report it to its maintainers`
        );
      }
      return (
        `server "${server}" does not support protocol version ${asked ?? '(unnamed)'} (-32022; it supports: ` +
        `${supported.length > 0 ? supported.join(', ') : 'none named'}); ` +
        'set protocol_version for this server to one of those (or remove it to let furfly choose), or update the server or furfly'
      );
    }
    default:
      return undefined;
  }
}
