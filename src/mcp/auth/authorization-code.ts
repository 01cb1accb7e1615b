/**
 * One authorization code grant with PKCE (S256) through the user's browser and a loopback redirect
 * (RFC 8252): a one-shot HTTP server on 127.0.0.1 with an ephemeral port receives the redirect.
 *
 * - PKCE: refused unless the authorization server's metadata lists S256 in
 *   `code_challenge_methods_supported` (2025-11-25 and 2026-07-28: "MUST refuse to proceed").
 * - The `resource` parameter (RFC 8707) goes into both the authorization and the token request.
 * - The authorization response is validated by oauth4webapi's `validateAuthResponse`: `state`, and
 *   `iss` (RFC 9207) exactly as 2026-07-28's table says: compared when present, required when the
 *   metadata advertises it. On a mismatch nothing of the response (error or description) is shown.
 * - The wait is bounded (a visible countdown) and can be cancelled (an AbortSignal: Ctrl-C).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { insecureAllowed } from './discovery.js';
import { type DpopKey, withDpopNonceRetry } from './dpop.js';
import { AuthorizationError } from './errors.js';

export interface LoginUi {
  /** One line for the user (stderr). Never given a token. */
  say(line: string): void;
  /** Replaces the countdown line (a TTY) or prints it now and then (otherwise). */
  countdown?(secondsLeft: number): void;
  /** Opens a URL in a browser; false when none could be started. Undefined: never open one. */
  openBrowser?: (url: string) => Promise<boolean>;
  /** How long the user has, in milliseconds (default 5 minutes). */
  timeoutMs?: number;
  /** Ctrl-C. */
  signal?: AbortSignal;
  /**
   * Called as a login starts; the returned function as it ends. A command whose requests wait for the
   * login stops their timeouts meanwhile (the person's time in the browser is not the server's).
   */
  holdTimeouts?: () => () => void;
}

export interface CodeGrantRequest {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly resource: string;
  /** Space-separated; omitted when undefined. */
  readonly scope: string | undefined;
  /** The redirect listener to use (so a client registered for it can be registered first). */
  readonly redirect: LoopbackRedirect;
  readonly fetch?: typeof fetch;
  /** Binds the token to this key (DPoP, dpop.ts): a proof goes with the code exchange. */
  readonly dpop?: DpopKey;
}

export const REDIRECT_PATH = '/callback';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** Refuses an authorization server that does not advertise S256. */
export function requirePkceS256(as: oauth.AuthorizationServer): void {
  const methods = as.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    throw new AuthorizationError(
      `the authorization server ${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported${methods === undefined ? ' is absent' : `: ${methods.join(', ')}`}); furfly refuses to log in without it`,
    );
  }
}

/** The loopback listener of one login. */
export class LoopbackRedirect {
  private constructor(
    private readonly server: Server,
    readonly uri: string,
  ) {}

  /** Listens on 127.0.0.1, on `preferredPort` when it is free, else on an ephemeral port. */
  static async start(preferredPort?: number): Promise<LoopbackRedirect> {
    const server = createServer();
    const listen = (port: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    try {
      await listen(preferredPort ?? 0);
    } catch {
      await listen(0);
    }
    const { port } = server.address() as AddressInfo;
    return new LoopbackRedirect(server, `http://127.0.0.1:${port}${REDIRECT_PATH}`);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The first request to the redirect path, as a URL; other paths get 404. */
  next(signal: AbortSignal): Promise<URL> {
    return new Promise((resolve, reject) => {
      const onRequest = (req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? '/', this.uri);
        if (url.pathname !== REDIRECT_PATH) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(
          '<!doctype html><title>furfly</title><p>furfly received the answer of the authorization server. You can close this window and return to the terminal.</p>',
        );
        cleanUp();
        resolve(url);
      };
      const onAbort = () => {
        cleanUp();
        reject(signal.reason);
      };
      const cleanUp = () => {
        this.server.off('request', onRequest);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      this.server.on('request', onRequest);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** Runs the browser step and the code exchange; resolves to the token endpoint's response. */
export async function authorizationCodeGrant(
  request: CodeGrantRequest,
  ui: LoginUi,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client, clientAuth, resource, scope, redirect } = request;
  requirePkceS256(as);
  if (as.authorization_endpoint === undefined) {
    throw new AuthorizationError(`the authorization server ${as.issuer} names no authorization endpoint`);
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  // The URL goes to the system's opener: only a web page may be opened (never file:, smb: or an app's
  // own scheme), and plain http only on this machine.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecureAllowed(url))) {
    throw new AuthorizationError(
      `the authorization server ${as.issuer} names an authorization endpoint that is not an https URL (${url.protocol})`,
    );
  }
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', redirect.uri);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('resource', resource);
  if (scope !== undefined && scope !== '') url.searchParams.set('scope', scope);

  const opened = ui.openBrowser === undefined ? false : await ui.openBrowser(url.href);
  if (opened) ui.say('opened your browser to log in (if it did not open, run again with --no-browser)');
  else ui.say(`open this URL in a browser to log in:\n${url.href}`);

  const timeoutMs = ui.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const waiting = new AbortController();
  const onCancel = () => waiting.abort(new AuthorizationError('login cancelled'));
  ui.signal?.addEventListener('abort', onCancel, { once: true });
  if (ui.signal?.aborted === true) onCancel();
  const deadline = Date.now() + timeoutMs;
  const timer = setTimeout(
    () =>
      waiting.abort(
        new AuthorizationError(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`),
      ),
    timeoutMs,
  );
  const ticker = setInterval(
    () => ui.countdown?.(Math.max(0, Math.ceil((deadline - Date.now()) / 1000))),
    1000,
  );
  ui.countdown?.(Math.ceil(timeoutMs / 1000));
  let callback: URL;
  try {
    callback = await redirect.next(waiting.signal);
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    ui.signal?.removeEventListener('abort', onCancel);
  }

  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callback, state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      // iss and state were checked before this error was raised, so the server's words may be shown.
      throw new AuthorizationError(
        `the authorization server refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
      );
    }
    throw new AuthorizationError(
      `the authorization response was rejected: ${(error as Error).message} (issuer or state did not match)`,
    );
  }
  const options = {
    additionalParameters: { resource },
    ...(insecureAllowed(as.token_endpoint ?? as.issuer) ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(request.fetch === undefined ? {} : { [oauth.customFetch]: request.fetch }),
    ...(request.dpop === undefined ? {} : { DPoP: request.dpop.handle }),
  };
  try {
    // A use_dpop_nonce refusal comes before the code is spent: the same code goes again, with the nonce.
    return await withDpopNonceRetry(request.dpop, async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirect.uri,
        verifier,
        options,
      );
      return oauth.processAuthorizationCodeResponse(as, client, response);
    });
  } catch (error) {
    throw tokenError('the token endpoint refused the authorization code', error);
  }
}

/** A token endpoint failure in words that hold no token or code. */
export function tokenError(what: string, error: unknown): AuthorizationError {
  if (error instanceof oauth.ResponseBodyError) {
    return new AuthorizationError(
      `${what}: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
    );
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    // e.g. 401 invalid_client: the server's error code and description, never the request.
    const params = error.cause[0]?.parameters;
    const detail = params?.error === undefined ? '' : `: ${params.error}`;
    const description = params?.error_description === undefined ? '' : ` (${params.error_description})`;
    return new AuthorizationError(`${what}: HTTP ${error.status}${detail}${description}`);
  }
  return new AuthorizationError(`${what}: ${(error as Error).message}`);
}
