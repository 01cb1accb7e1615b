import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  discover,
  protectedResourceMetadataUrls,
  resourceCovers,
} from './discovery.js';
import { bearerChallenge, scopeList } from './www-authenticate.js';

describe('the spec-ordered well-known URLs', () => {
  it('protected resource metadata: path-aware first, then the root; the root only for a root server', () => {
    expect(protectedResourceMetadataUrls('https://example.com/public/mcp')).toEqual([
      'https://example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
    expect(protectedResourceMetadataUrls('https://example.com')).toEqual([
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
  });

  it('authorization server metadata: RFC 8414 and OIDC insertion, then OIDC appending; two for a root issuer', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
    expect(authorizationServerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });
});

describe('resources', () => {
  it('canonical URIs drop the fragment and a lone trailing slash, and lower-case scheme and host', () => {
    expect(canonicalResource('HTTPS://MCP.Example.com/')).toBe('https://mcp.example.com');
    expect(canonicalResource('https://mcp.example.com/mcp#x')).toBe('https://mcp.example.com/mcp');
  });

  it('metadata may name the server itself or a path prefix on its origin, nothing else', () => {
    expect(resourceCovers('https://a.example/mcp', 'https://a.example/mcp')).toBe(true);
    expect(resourceCovers('https://a.example', 'https://a.example/x/mcp')).toBe(true);
    expect(resourceCovers('https://a.example/x', 'https://a.example/x/mcp')).toBe(true);
    expect(resourceCovers('https://a.example/x', 'https://a.example/xy/mcp')).toBe(false);
    expect(resourceCovers('https://b.example/mcp', 'https://a.example/mcp')).toBe(false);
    expect(resourceCovers('http://a.example/mcp', 'https://a.example/mcp')).toBe(false);
    expect(resourceCovers('not a url', 'https://a.example/mcp')).toBe(false);
  });
});

describe('WWW-Authenticate', () => {
  it('reads the Bearer challenge among others, quoted and token values, escapes', () => {
    const header =
      'Basic realm="x", Bearer resource_metadata="https://m.example/.well-known/oauth-protected-resource", scope="files:read files:write", error=insufficient_scope, error_description="say \\"hi\\""';
    expect(bearerChallenge(header)?.params).toEqual({
      resource_metadata: 'https://m.example/.well-known/oauth-protected-resource',
      scope: 'files:read files:write',
      error: 'insufficient_scope',
      error_description: 'say "hi"',
    });
    expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(bearerChallenge(undefined)).toBeUndefined();
    expect(scopeList(' a  b ')).toEqual(['a', 'b']);
  });

  const token = fc.stringMatching(/^[a-z_]{1,10}$/);
  const value = fc.string({ maxLength: 30 }).filter((s) => !/[\u0000-\u001f]/.test(s));
  test.prop([fc.dictionary(token, value, { maxKeys: 5 })])(
    'any parameters written as quoted strings read back as written',
    (params) => {
      const written = Object.entries(params)
        .map(([k, v]) => `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
        .join(', ');
      const read = bearerChallenge(`Bearer ${written}`);
      expect(read?.params).toEqual(Object.fromEntries(Object.entries(params)));
    },
  );

  test.prop([fc.string({ maxLength: 200 })])('never throws on arbitrary input', (header) => {
    bearerChallenge(header);
  });
});

describe('the 2025-03-26 fallbacks (no protected resource metadata)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(documents: Record<string, (origin: string) => object>): Promise<string> {
    server = createServer((req, res) => {
      const origin = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
      const doc = documents[new URL(req.url ?? '/', origin).pathname];
      if (doc === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(origin)));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('uses the default endpoints under the server origin when there is no metadata at all', async () => {
    const origin = await serve({});
    const found = await discover(`${origin}/v1/mcp`);
    expect(found.protectedResource).toBeUndefined();
    expect(found.as.authorization_endpoint).toBe(`${origin}/authorize`);
    expect(found.as.token_endpoint).toBe(`${origin}/token`);
    expect(found.as.registration_endpoint).toBe(`${origin}/register`);
    expect(found.resource).toBe(`${origin}/v1/mcp`);
  });

  it("uses the origin's RFC 8414 document when there is one", async () => {
    const origin = await serve({
      '/.well-known/oauth-authorization-server': (o) => ({
        issuer: o,
        authorization_endpoint: `${o}/oauth/authorize`,
        token_endpoint: `${o}/oauth/token`,
        response_types_supported: ['code'],
      }),
    });
    const found = await discover(`${origin}/mcp`);
    expect(found.as.authorization_endpoint).toBe(`${origin}/oauth/authorize`);
  });

  it('refuses metadata whose issuer is not identical to the one the URL was built from', async () => {
    const origin = await serve({
      '/.well-known/oauth-protected-resource/mcp': (o) => ({
        resource: `${o}/mcp`,
        authorization_servers: [o],
      }),
      '/.well-known/oauth-authorization-server': () => ({ issuer: 'https://honest.example' }),
    });
    await expect(discover(`${origin}/mcp`)).rejects.toThrow(/not valid for the issuer|names the issuer/);
  });
});
