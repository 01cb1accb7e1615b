/**
 * `--auth-token T`: the test server as an OAuth protected resource (MCP 2025-11-25 basic/authorization),
 * with a static bearer token standing in for an access token. Enough for the conformance checks of what
 * a server shows a client: the 401 challenge with `resource_metadata` and `scope`, the RFC 9728 metadata
 * document, `invalid_token` for a wrong token, and `insufficient_scope` (403) for the one operation the
 * token's scope does not cover (`tools/call` of `admin_echo`). No authorization server is run: the
 * metadata names one that a real client would then discover; the conformance suite never goes there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpDefects, header } from './http-common.js';

/** The scope the static token carries, and the one it lacks. */
export const GRANTED_SCOPE = 'mcp:tools';
export const ADMIN_SCOPE = 'mcp:admin';
/** The tool whose call needs ADMIN_SCOPE: the one way to meet insufficient_scope. */
export const ADMIN_TOOL = 'admin_echo';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** `http://127.0.0.1:PORT`, as the server is reached. */
export type Origin = string;

export function metadataUrl(origin: Origin, endpoint: string): string {
  return `${origin}${WELL_KNOWN}${endpoint}`;
}

/**
 * Serves the RFC 9728 document at both well-known places (path-inserted and root). True when the
 * request was for one of them (answered here).
 */
export function serveResourceMetadata(
  path: string,
  res: ServerResponse,
  origin: Origin,
  endpoint: string,
  defects: HttpDefects,
): boolean {
  if (path !== `${WELL_KNOWN}${endpoint}` && path !== WELL_KNOWN) return false;
  if (defects.authNoResourceMetadata) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    return true;
  }
  const document: Record<string, unknown> = {
    resource: `${origin}${endpoint}`,
    scopes_supported: [GRANTED_SCOPE, ADMIN_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Furfly test server',
  };
  if (!defects.authMetadataWithoutServers) document.authorization_servers = [`${origin}/oauth`];
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  return true;
}

function challenge(origin: Origin, endpoint: string, defects: HttpDefects, extra: string[]): string {
  const parts = [...extra];
  if (!defects.authNoResourceMetadata) parts.push(`resource_metadata="${metadataUrl(origin, endpoint)}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** False after answering 401 (or a defect's status) to a request without the right bearer token. */
export function authorized(
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  origin: Origin,
  endpoint: string,
  defects: HttpDefects,
): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1]?.trim();
  if (given === token || (given !== undefined && defects.authAcceptAnyToken)) return true;
  const extra = given === undefined ? [] : ['error="invalid_token"'];
  if (!defects.authNoScopeHint) extra.push(`scope="${GRANTED_SCOPE}"`);
  const status = given === undefined && defects.authForbiddenWithoutToken ? 403 : 401;
  res.writeHead(status, {
    'content-type': 'application/json',
    'www-authenticate': challenge(origin, endpoint, defects, extra),
  });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized' } }));
  return false;
}

/** Whether a POST body asks for what the static token's scope does not cover. */
export function needsAdminScope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as { method?: unknown; params?: { name?: unknown } };
  return message.method === 'tools/call' && message.params?.name === ADMIN_TOOL;
}

export function refuseInsufficientScope(
  res: ServerResponse,
  origin: Origin,
  endpoint: string,
  defects: HttpDefects,
): void {
  res.writeHead(defects.insufficientScopeStatus ?? 403, {
    'content-type': 'application/json',
    'www-authenticate': challenge(origin, endpoint, defects, [
      'error="insufficient_scope"',
      `scope="${GRANTED_SCOPE} ${ADMIN_SCOPE}"`,
    ]),
  });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Insufficient scope' } }));
}
