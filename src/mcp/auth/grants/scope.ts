/**
 * Scopes for an unattended grant, in the order the spec gives for a login ("Scope Selection Strategy"):
 * the config's `oauth.scopes`, else the challenge's `scope`, else the protected resource metadata's
 * `scopes_supported`, else none. Unlike a login, `offline_access` is never added: a client that can get a
 * new token by itself at any time has no use for a refresh token.
 */
import { scopeList } from '../www-authenticate.js';

export function unattendedScope(
  configured: readonly string[] | undefined,
  challenged: string | undefined,
  supported: readonly string[] | undefined,
): string | undefined {
  let scopes: readonly string[] = [];
  if (configured !== undefined && configured.length > 0) scopes = configured;
  else if (challenged !== undefined && challenged.trim() !== '') scopes = scopeList(challenged);
  else if (supported !== undefined) scopes = supported;
  return scopes.length === 0 ? undefined : scopes.join(' ');
}
