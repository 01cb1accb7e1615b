import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserCommand } from './browser.js';
import { TokenStore } from './token-store.js';

const tokens = (resource: string, issuer: string, access: string) => ({
  issuer,
  resource,
  client_id: 'c1',
  access_token: access,
  token_type: 'bearer',
  refresh_token: `${access}-refresh`,
});

describe('TokenStore', () => {
  it('keeps tokens per issuer and resource in a 0600 file, replaced whole, with no temporary left', () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'furfly-store-')), 'home');
    const store = new TokenStore(dir);
    expect(store.tokensFor('https://a.example/mcp')).toBeUndefined();
    store.saveTokens(tokens('https://a.example/mcp', 'https://as1.example', 'access-one-1234'));
    store.saveTokens(tokens('https://a.example/mcp', 'https://as2.example', 'access-two-1234'));
    store.saveTokens(tokens('https://b.example/mcp', 'https://as1.example', 'access-three-12'));
    store.saveTokens(tokens('https://a.example/mcp', 'https://as1.example', 'access-four-123'));
    expect(store.tokensFor('https://a.example/mcp', 'https://as1.example')?.access_token).toBe(
      'access-four-123',
    );
    expect(store.tokensFor('https://a.example/mcp', 'https://as2.example')?.access_token).toBe(
      'access-two-1234',
    );
    // Without an issuer, the newest login for the resource (after a move to another authorization
    // server, the old one's token is not the one to send).
    expect(store.tokensFor('https://a.example/mcp')?.access_token).toBe('access-four-123');
    store.saveTokens(tokens('https://a.example/mcp', 'https://as2.example', 'access-five-123'));
    expect(store.tokensFor('https://a.example/mcp')?.access_token).toBe('access-five-123');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['oauth-credentials.json']);
    expect(store.secrets().sort()).toEqual(
      [
        'access-four-123',
        'access-four-123-refresh',
        'access-five-123',
        'access-five-123-refresh',
        'access-three-12',
        'access-three-12-refresh',
      ].sort(),
    );
    expect(store.removeTokens('https://a.example/mcp')).toBe(true);
    expect(store.removeTokens('https://a.example/mcp')).toBe(false);
    expect(store.tokensFor('https://b.example/mcp')?.access_token).toBe('access-three-12');
  });

  it('keeps a dynamically registered client per issuer', () => {
    const store = new TokenStore(mkdtempSync(path.join(tmpdir(), 'furfly-store-')));
    store.saveClient({ issuer: 'https://as.example', client_id: 'x', token_endpoint_auth_method: 'none' });
    expect(store.clientFor('https://as.example')?.client_id).toBe('x');
    expect(store.clientFor('https://other.example')).toBeUndefined();
  });

  it('a damaged file is an error that quotes nothing of it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-store-'));
    writeFileSync(path.join(dir, 'oauth-credentials.json'), '{"tokens": [secret-looking-token');
    const store = new TokenStore(dir);
    expect(() => store.tokensFor('https://a.example')).toThrow(
      /is not valid JSON; remove it and log in again/,
    );
    expect(() => store.tokensFor('https://a.example')).not.toThrow(/secret-looking-token/);
    expect(store.secrets()).toEqual([]);
    expect(readFileSync(path.join(dir, 'oauth-credentials.json'), 'utf8')).toContain('secret');
  });
});

describe('browserCommand', () => {
  it('$BROWSER first (the first of a colon list), else the platform opener', () => {
    expect(browserCommand({ BROWSER: 'firefox --new-tab' }, 'linux')).toEqual(['firefox', '--new-tab']);
    expect(browserCommand({ BROWSER: 'w3m:lynx' }, 'linux')).toEqual(['w3m']);
    expect(browserCommand({}, 'linux')).toEqual(['xdg-open']);
    expect(browserCommand({ BROWSER: '' }, 'darwin')).toEqual(['open']);
    // Never through cmd.exe, which reads the `&` of a query string as a command separator (red team).
    expect(browserCommand({}, 'win32')).toEqual(['explorer.exe']);
  });
});
