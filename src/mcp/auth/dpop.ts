/**
 * DPoP (RFC 9449; the MCP DPoP extension, SEP-1932): tokens bound to a key only this furfly holds.
 *
 * The key is an ES256 key pair made for one login and stored (private part included) with the tokens it
 * binds, in the 0600 credentials file: `furfly mcp login` and a later `furfly mcp call` are different
 * processes, and a DPoP-bound token is worth nothing without its key. Proofs are oauth4webapi's: its
 * `DPoP` handle signs them (`typ: dpop+jwt`, `jti`, `htm`, `htu` without query or fragment, `iat`,
 * `ath` for a token) and remembers the servers' nonces per origin. For the token endpoint its request
 * functions use the handle themselves; for MCP requests, which go through furfly's own transport, this
 * module calls the same handle to make the proof of each request.
 *
 * Nonces (RFC 9449 sections 8 and 9): a `use_dpop_nonce` answer carries `DPoP-Nonce`; the handle keeps
 * it and the request is sent once more with a proof that includes it.
 */
import { webcrypto } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { OAuthClientConfig } from '../../config/types.js';
import { AuthorizationError } from './errors.js';

/** The one algorithm furfly signs proofs with; every DPoP server must accept some, and ES256 is the common one. */
export const DPOP_ALGORITHM = 'ES256';
const KEY_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;
type KeyPair = Parameters<typeof oauth.DPoP>[1];

/**
 * What oauth4webapi's DPoP handle does besides its typed `calculateThumbprint`: these two methods are
 * what its own request functions call. Checked at runtime, so a library change fails closed (no proof
 * is ever sent without a signature) instead of sending a bearer token.
 */
interface ProofMaker {
  addProof(url: URL, headers: Headers, htm: string, accessToken?: string): Promise<void>;
  cacheNonce(response: { headers: Headers }, url: URL): void;
}

export class DpopKey {
  private constructor(
    /** The private key as a JWK, for the credentials file only. */
    readonly jwk: webcrypto.JsonWebKey,
    readonly handle: oauth.DPoPHandle,
  ) {}

  static async generate(): Promise<DpopKey> {
    const pair = (await webcrypto.subtle.generateKey(KEY_PARAMS, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const jwk = await webcrypto.subtle.exportKey('jwk', pair.privateKey);
    return DpopKey.fromJwk(jwk);
  }

  /** The key stored with a token. */
  static async fromJwk(jwk: webcrypto.JsonWebKey): Promise<DpopKey> {
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') {
      throw new AuthorizationError('the stored DPoP key is not a P-256 private key; log in again');
    }
    const { d: _private, key_ops: _ops, ...publicJwk } = jwk;
    const privateKey = await webcrypto.subtle.importKey('jwk', jwk, KEY_PARAMS, false, ['sign']);
    const publicKey = await webcrypto.subtle.importKey('jwk', publicJwk, KEY_PARAMS, true, ['verify']);
    const handle = oauth.DPoP({}, { privateKey, publicKey } as KeyPair);
    const maker = handle as unknown as Partial<ProofMaker>;
    if (typeof maker.addProof !== 'function' || typeof maker.cacheNonce !== 'function') {
      throw new AuthorizationError('this build of oauth4webapi cannot make DPoP proofs for MCP requests');
    }
    return new DpopKey(jwk, handle);
  }

  /** The `DPoP` header of one request to `url` carrying `accessToken` (a fresh proof every time). */
  async proof(url: URL, method: string, accessToken: string): Promise<string> {
    const headers = new Headers();
    await (this.handle as unknown as ProofMaker).addProof(url, headers, method.toUpperCase(), accessToken);
    const proof = headers.get('dpop');
    if (proof === null) throw new AuthorizationError('no DPoP proof could be made');
    return proof;
  }

  /** A server's `DPoP-Nonce` for `url`'s origin, for the next proofs there. */
  rememberNonce(url: URL, nonce: string): void {
    (this.handle as unknown as ProofMaker).cacheNonce({ headers: new Headers({ 'dpop-nonce': nonce }) }, url);
  }
}

/**
 * Whether a login binds its token with DPoP: `oauth.dpop` when written; otherwise when the MCP server
 * asked for DPoP (its challenge used the DPoP scheme) and the authorization server supports ES256 proofs.
 */
export function wantsDpop(
  config: OAuthClientConfig | undefined,
  as: oauth.AuthorizationServer,
  serverAskedForDpop: boolean,
): boolean {
  const supported = as.dpop_signing_alg_values_supported;
  const asSupports = Array.isArray(supported) && supported.includes(DPOP_ALGORITHM);
  if (config?.dpop === false) return false;
  if (config?.dpop === true) {
    if (!asSupports) {
      throw new AuthorizationError(
        `oauth.dpop is true, but the authorization server ${as.issuer} does not list ${DPOP_ALGORITHM} in dpop_signing_alg_values_supported`,
      );
    }
    return true;
  }
  return serverAskedForDpop && asSupports;
}

/**
 * Runs a token request once more when the authorization server answered `use_dpop_nonce` (RFC 9449
 * section 8): the handle has kept the nonce from that answer, so the second proof carries it.
 */
export async function withDpopNonceRetry<T>(
  dpop: DpopKey | undefined,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}
