/**
 * The client's private key for `private_key_jwt` (RFC 7523 section 2.2), read from the file the config
 * names (`oauth.private_key_file`). The key stays on this machine: oauth4webapi signs a short-lived
 * assertion with it for each token request. Messages name the file, never its content.
 *
 * Accepted: PEM (PKCS#8, PKCS#1 RSA, SEC1 EC) or a JWK file with the private part. The JWS algorithm
 * is the configured one, else the one the key type implies.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { importPKCS8 } from 'jose';
import type * as oauth from 'oauth4webapi';
import { AuthorizationError } from '../errors.js';

/** `~/x` is the home folder's x; anything else must be absolute (a config has no working folder). */
export function credentialPath(file: string, field: string): string {
  const expanded = file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
  if (!path.isAbsolute(expanded)) {
    throw new AuthorizationError(`oauth.${field} must be an absolute path (or start with ~/)`);
  }
  return expanded;
}

export async function loadClientKey(file: string, configuredAlg?: string): Promise<oauth.PrivateKey> {
  const where = credentialPath(file, 'private_key_file');
  let text: string;
  try {
    text = readFileSync(where, 'utf8');
  } catch (error) {
    throw new AuthorizationError(
      `cannot read oauth.private_key_file ${where}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let key: KeyObject;
  try {
    key = text.trimStart().startsWith('{')
      ? createPrivateKey({ key: JSON.parse(text) as import('node:crypto').JsonWebKey, format: 'jwk' })
      : createPrivateKey(text);
  } catch {
    throw new AuthorizationError(`oauth.private_key_file ${where} holds no private key furfly can read`);
  }
  const alg = configuredAlg ?? algorithmOf(key);
  if (alg === undefined) {
    throw new AuthorizationError(
      `the key in oauth.private_key_file ${where} is of a type furfly cannot sign with; write oauth.signing_algorithm`,
    );
  }
  const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  try {
    return { key: await importPKCS8(pkcs8, alg) };
  } catch {
    throw new AuthorizationError(`the key in oauth.private_key_file ${where} cannot sign with ${alg}`);
  }
}

function algorithmOf(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ed25519':
      return 'EdDSA';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return 'ES256';
      if (curve === 'secp384r1') return 'ES384';
      if (curve === 'secp521r1') return 'ES512';
      return undefined;
    }
    default:
      return undefined;
  }
}
