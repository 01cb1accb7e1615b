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
 *
 * Several furfly processes may refresh at once (an agent and `furfly mcp call`, two agents). Every change
 * is a read-merge-write of the whole file under an exclusive lock file (created with O_EXCL beside it),
 * so one process never writes back a file that lacks what another saved meanwhile. Reads take no lock:
 * the file is only ever replaced whole. A lock left by a process that died (its pid is gone) or older
 * than `STALE_LOCK_MS` is taken over; see `FileLock`.
 */
import { randomBytes, type webcrypto } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
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
  /** The private key a DPoP-bound token is bound to (dpop.ts): without it the token is useless. */
  readonly dpop_jwk?: webcrypto.JsonWebKey;
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
    // The newest login (saveTokens appends): after the server moved to another authorization server
    // and the user logged in there, the old issuer's token is not the one to send.
    return this.read().tokens.findLast(
      (t) => t.resource === resource && (issuer === undefined || t.issuer === issuer),
    );
  }

  saveTokens(tokens: StoredTokens): void {
    this.update((data) => {
      data.tokens = data.tokens.filter(
        (t) => !(t.resource === tokens.resource && t.issuer === tokens.issuer),
      );
      data.tokens.push(tokens);
      return true;
    });
  }

  /** Every stored login for `resource` (one per issuer). */
  allTokensFor(resource: string): StoredTokens[] {
    return this.read().tokens.filter((t) => t.resource === resource);
  }

  /** Forgets every token for `resource`; true when there was one. */
  removeTokens(resource: string): boolean {
    return this.update((data) => {
      const kept = data.tokens.filter((t) => t.resource !== resource);
      if (kept.length === data.tokens.length) return false;
      data.tokens = kept;
      return true;
    });
  }

  clientFor(issuer: string): StoredClient | undefined {
    return this.read().clients.find((c) => c.issuer === issuer);
  }

  saveClient(client: StoredClient): void {
    this.update((data) => {
      data.clients = data.clients.filter((c) => c.issuer !== client.issuer);
      data.clients.push(client);
      return true;
    });
  }

  /**
   * The lock one refresh holds across its request to the token endpoint, so two furfly processes never
   * spend the same refresh token (with rotation the second would fail, and some servers then revoke the
   * whole grant): the second waits, then finds the first one's new tokens in the file. Not the file's
   * own lock: writes go on meanwhile. Resolves to undefined when it could not be had in time (the
   * refresh then goes ahead unguarded rather than not at all).
   */
  async lockForRefresh(): Promise<FileLock | undefined> {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    try {
      return await FileLock.acquireAsync(
        `${this.file}.refresh.lock`,
        REFRESH_LOCK_WAIT_MS,
        REFRESH_LOCK_STALE_MS,
      );
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the newest file, lets `change` edit it, and writes it back, all under the lock, so what other
   * processes saved in between is kept. `change` returns whether it changed anything (else no write).
   */
  private update(change: (data: FileShape) => boolean): boolean {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const lock = FileLock.acquire(`${this.file}.lock`);
    try {
      const data = this.read();
      const changed = change(data);
      if (changed) this.write(data);
      return changed;
    } finally {
      lock.release();
    }
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

/** A lock held longer than this is from a process that hung or died mid-write (a write takes milliseconds). */
export const STALE_LOCK_MS = 10_000;
/** How long a process waits for a live lock before it gives up with an error. */
const LOCK_WAIT_MS = 15_000;
/** A refresh holds its lock for one token request; longer than this and its holder hung. */
const REFRESH_LOCK_STALE_MS = 60_000;
const REFRESH_LOCK_WAIT_MS = 60_000;

/**
 * An exclusive lock file: created with O_EXCL (`wx`), holding the owner's pid and a random tag. Another
 * process waits while the owner lives; a lock whose pid is gone, or older than STALE_LOCK_MS, is stale
 * and removed, but only if it is still the very lock judged stale (same tag), so a waiter never removes
 * a lock another waiter has just taken over.
 */
export class FileLock {
  private constructor(
    private readonly file: string,
    private readonly tag: string,
  ) {}

  /** Waits synchronously (a file write is milliseconds): for the store's read-merge-write. */
  static acquire(file: string, waitMs = LOCK_WAIT_MS, staleMs = STALE_LOCK_MS): FileLock {
    const tag = newTag();
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      const step = tryLock(file, tag, staleMs, deadline);
      if (step === 'taken') return new FileLock(file, tag);
      if (step === 'again') continue;
      sleepSync(Math.min(50, 2 + attempt * 3));
    }
  }

  /** Waits without blocking the event loop: for a lock held across a network request (a refresh). */
  static async acquireAsync(file: string, waitMs: number, staleMs: number): Promise<FileLock> {
    const tag = newTag();
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      const step = tryLock(file, tag, staleMs, deadline);
      if (step === 'taken') return new FileLock(file, tag);
      if (step === 'again') continue;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 + attempt * 5)));
    }
  }

  release(): void {
    // Only our own lock: a lock of ours taken over as stale belongs to someone else now.
    removeIfTagged(this.file, this.tag);
  }
}

/**
 * Removes the lock `file` only if it carries `tag`. Reading the tag and then removing the file would leave a
 * window in which another process replaces the lock and loses it to us; so the file is first moved aside
 * (a rename is atomic: of several processes only one moves a given lock), judged there, and put back
 * (with a link, which never replaces a lock taken meanwhile) when it turns out to be someone else's.
 */
function removeIfTagged(file: string, tag: string): void {
  const aside = `${file}.${randomBytes(6).toString('hex')}.aside`;
  try {
    renameSync(file, aside);
  } catch {
    return; // gone already: another process released or took it over
  }
  try {
    if (readFileSync(aside, 'utf8') !== tag) linkSync(aside, file);
  } catch {
    // Someone locked again meanwhile (EEXIST): theirs stands, and the moved lock's holder finds at release
    // that its lock is no longer there, which is what a lock taken over as stale looks like.
  } finally {
    rmSync(aside, { force: true });
  }
}

function newTag(): string {
  return `${process.pid} ${randomBytes(8).toString('hex')}`;
}

/** One attempt: taken, try again at once (a stale lock was removed), or wait; throws past the deadline. */
function tryLock(file: string, tag: string, staleMs: number, deadline: number): 'taken' | 'again' | 'wait' {
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, tag);
    } finally {
      closeSync(fd);
    }
    return 'taken';
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
  const held = readLock(file);
  if (held !== undefined && isStale(held, staleMs)) {
    // Still the same lock (not one taken over meanwhile): remove it and try again at once.
    removeIfTagged(file, held.tag);
    return 'again';
  }
  if (Date.now() > deadline) {
    throw new Error(
      `${file} is held by another furfly process${held === undefined ? '' : ` (pid ${held.pid})`}; if none is running, remove that file`,
    );
  }
  return 'wait';
}

function readLock(file: string): { tag: string; pid: number; ageMs: number } | undefined {
  try {
    const tag = readFileSync(file, 'utf8');
    const ageMs = Date.now() - statSync(file).mtimeMs;
    return { tag, pid: Number(tag.split(' ')[0]), ageMs };
  } catch {
    return undefined;
  }
}

function isStale(lock: { tag: string; pid: number; ageMs: number }, staleMs: number): boolean {
  if (lock.ageMs > staleMs) return true;
  // A lock being written right now has no tag yet: give its owner a moment.
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return lock.ageMs > 1000;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH says it is gone.
    return (error as { code?: unknown }).code === 'ESRCH';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
