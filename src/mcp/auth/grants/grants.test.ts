import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthorizationError } from '../errors.js';
import { credentialPath, loadClientKey } from './client-key.js';
import { unattendedScope } from './scope.js';
import { unattendedGrantOf } from './unattended-grant.js';

describe('unattendedScope', () => {
  it('takes the config, else the challenge, else scopes_supported, and never adds offline_access', () => {
    expect(unattendedScope(['a', 'b'], 'c', ['d'])).toBe('a b');
    expect(unattendedScope(undefined, 'c  e', ['d'])).toBe('c e');
    expect(unattendedScope([], ' ', ['d', 'offline_access'])).toBe('d offline_access');
    expect(unattendedScope(undefined, undefined, ['d'])).toBe('d');
    expect(unattendedScope(undefined, undefined, undefined)).toBeUndefined();
  });
});

describe('unattendedGrantOf', () => {
  it('is undefined for the browser login', () => {
    expect(unattendedGrantOf(undefined)).toBeUndefined();
    expect(unattendedGrantOf({ client_id: 'x', grant: 'authorization_code' })).toBeUndefined();
    expect(unattendedGrantOf({ client_id: 'x', grant: 'client_credentials' })).toBe('client_credentials');
    expect(unattendedGrantOf({ client_id: 'x', grant: 'jwt_bearer' })).toBe('jwt_bearer');
  });
});

describe('loadClientKey', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'furfly-key-'));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it.each([
    [
      'P-256 (SEC1)',
      () =>
        generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }),
      'ES256',
    ],
    [
      'P-384',
      () =>
        generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({
          type: 'pkcs8',
          format: 'pem',
        }),
      'ES384',
    ],
    [
      'RSA (PKCS#1)',
      () =>
        generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
          type: 'pkcs1',
          format: 'pem',
        }),
      'RS256',
    ],
    [
      'Ed25519 (JWK)',
      () => JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })),
      'EdDSA',
    ],
  ])('reads a %s key and picks %s', async (name, make, alg) => {
    const key = await loadClientKey(write(`${name}.key`, String(make())));
    const algorithm = key.key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string };
    if (alg === 'RS256') expect(algorithm.name).toBe('RSASSA-PKCS1-v1_5');
    else if (alg === 'EdDSA') expect(algorithm.name).toBe('Ed25519');
    else expect(algorithm.namedCurve).toBe(alg === 'ES256' ? 'P-256' : 'P-384');
  });

  it('names the file, never its content, when it holds no key', async () => {
    const file = write('not-a-key.pem', 'secret-looking-text-1234');
    const error = await loadClientKey(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).not.toContain('secret-looking-text-1234');
  });

  it('wants an absolute path (a config has no working folder)', () => {
    expect(() => credentialPath('keys/a.pem', 'private_key_file')).toThrow(/absolute path/);
    expect(credentialPath('~/a.pem', 'private_key_file')).toMatch(/a\.pem$/);
  });
});
