/**
 * The user's OAuth credentials for remote MCP servers, in one file of the user folder
 * (`$FURFLY_HOME/oauth-credentials.json`, default `~/.furflycode/`), readable by the user only (0600)
 * and replaced atomically (a private temporary file renamed over it), so a crash never leaves half a file.
 *
 * Two kinds of records, both keyed by the authorization server's `issuer` (2026-07-28, "Authorization
 * Server Binding": client credentials belong to the server that issued them):
 * - `clients`: a client registered dynamically with an issuer, reused for every resource of that issuer;
 * - `tokens`: the tokens one issuer gave for one resource. The resource is the MCP server URL the
 *   tokens are sent to, never what a metadata document claims, so a token only ever goes back to the
 *   URL it was obtained for (see docs/remote-servers.md, "Where tokens go").
 *
 * Nothing here prints: the values are secrets (`storedSecrets` lists them for the redactor).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isObject } from '../../util/is-object.js';

export const CREDENTIALS_FILE_NAME = 'oauth-credentials.json';

export interface StoredClient {
  readonly issuer: string;
  readonly client_id: string;
  readonly client_secret?: string;
  /** `none`, `client_secret_basic` or `client_secret_post`. */
  readonly token_endpoint_auth_method: string;
  /** The redirect URI the client was registered with (loopback; the port is chosen per login). */
  readonly redirect_uris?: readonly string[];
}

export interface StoredTokens {
  readonly issuer: string;
  /** The MCP server URL (canonical) these tokens are sent to. */
  readonly resource: string;
  /** The `resource` parameter they were requested with (the protected resource metadata's, or `resource`). */
  readonly resource_indicator?: string;
  /** The client that obtained them (needed to refresh). */
  readonly client_id: string;
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Epoch milliseconds; absent when the server did not say. */
  readonly expires_at?: number;
  /** The scopes requested (space-separated), kept for step-up unions. */
  readonly scope?: string;
}

interface FileShape {
  version: 1;
  clients: StoredClient[];
  tokens: StoredTokens[];
}

export class TokenStore {
  readonly file: string;

  constructor(userDir: string) {
    this.file = path.join(userDir, CREDENTIALS_FILE_NAME);
  }

  tokensFor(resource: string, issuer?: string): StoredTokens | undefined {
    return this.read().tokens.find(
      (t) => t.resource === resource && (issuer === undefined || t.issuer === issuer),
    );
  }

  saveTokens(tokens: StoredTokens): void {
    const data = this.read();
    data.tokens = data.tokens.filter((t) => !(t.resource === tokens.resource && t.issuer === tokens.issuer));
    data.tokens.push(tokens);
    this.write(data);
  }

  /** Forgets every token for `resource`; true when there was one. */
  removeTokens(resource: string): boolean {
    const data = this.read();
    const kept = data.tokens.filter((t) => t.resource !== resource);
    if (kept.length === data.tokens.length) return false;
    data.tokens = kept;
    this.write(data);
    return true;
  }

  clientFor(issuer: string): StoredClient | undefined {
    return this.read().clients.find((c) => c.issuer === issuer);
  }

  saveClient(client: StoredClient): void {
    const data = this.read();
    data.clients = data.clients.filter((c) => c.issuer !== client.issuer);
    data.clients.push(client);
    this.write(data);
  }

  /** Every stored secret (tokens, client secrets), for the redactor. Never throws. */
  secrets(): string[] {
    let data: FileShape;
    try {
      data = this.read();
    } catch {
      return [];
    }
    return [
      ...data.tokens.flatMap((t) => [t.access_token, ...(t.refresh_token ? [t.refresh_token] : [])]),
      ...data.clients.flatMap((c) => (c.client_secret ? [c.client_secret] : [])),
    ];
  }

  private read(): FileShape {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return { version: 1, clients: [], tokens: [] };
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Never quote the file: it holds tokens.
      throw new Error(`${this.file} is not valid JSON; remove it and log in again`);
    }
    if (!isObject(value) || !Array.isArray(value.clients) || !Array.isArray(value.tokens)) {
      throw new Error(`${this.file} is not a furfly credentials file; remove it and log in again`);
    }
    return {
      version: 1,
      clients: value.clients.filter(isStoredClient),
      tokens: value.tokens.filter(isStoredTokens),
    };
  }

  private write(data: FileShape): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      // Created 0600 (the mode applies only to a new file; the name is fresh), then renamed over.
      writeFileSync(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(temporary, 0o600);
      renameSync(temporary, this.file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }
}

function isStoredClient(value: unknown): value is StoredClient {
  return (
    isObject(value) &&
    typeof value.issuer === 'string' &&
    typeof value.client_id === 'string' &&
    typeof value.token_endpoint_auth_method === 'string'
  );
}

function isStoredTokens(value: unknown): value is StoredTokens {
  return (
    isObject(value) &&
    typeof value.issuer === 'string' &&
    typeof value.resource === 'string' &&
    typeof value.client_id === 'string' &&
    typeof value.access_token === 'string' &&
    typeof value.token_type === 'string'
  );
}
