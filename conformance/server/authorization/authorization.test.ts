/**
 * The authorization checks' parts that need no server (challenge parsing, metadata validation, the
 * resource comparison, the well-known URIs), and authorization.insufficient-scope-403 against the test
 * server started with --auth-token: its token lacks the scope of `admin_echo`, so calling that tool is
 * the one request a run can make that meets insufficient_scope. Nothing in the suite calls it, so this
 * test adds a check that does and runs it with the judging check.
 */
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, stopAllServers } from '../../../test-servers/testing.js';
import { type Check, LEGACY_ONLY, pass } from '../check.js';
import { runSuite } from '../run/runner.js';
import {
  authorizationChecks,
  bearerChallenge,
  metadataProblems,
  resourceCovers,
  wellKnownUrls,
} from './authorization.js';

afterEach(async () => {
  await stopAllServers();
});

describe('bearerChallenge', () => {
  it('reads quoted and bare parameters, names case-insensitively', () => {
    const params = bearerChallenge(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", Scope="files:read files:write", error=insufficient_scope',
    );
    expect(params?.get('resource_metadata')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
    expect(params?.get('scope')).toBe('files:read files:write');
    expect(params?.get('error')).toBe('insufficient_scope');
  });

  it('finds the Bearer challenge after another scheme, and nothing without one', () => {
    expect(bearerChallenge('Basic realm="x", Bearer scope="a"')?.get('scope')).toBe('a');
    expect(bearerChallenge('Basic realm="x"')).toBeNull();
    expect(bearerChallenge(null)).toBeNull();
  });

  test.prop([
    fc.dictionary(
      fc.stringMatching(/^[a-z_]{1,12}$/),
      fc.string({ maxLength: 30 }).filter((value) => !/[\r\n]/.test(value)),
      { maxKeys: 5 },
    ),
  ])('quoted values come back as they were sent', (params) => {
    const header = `Bearer ${Object.entries(params)
      .map(([name, value]) => `${name}="${value.replace(/["\\]/g, '\\$&')}"`)
      .join(', ')}`;
    const parsed = bearerChallenge(header);
    for (const [name, value] of Object.entries(params)) expect(parsed?.get(name)).toBe(value);
  });
});

describe('protected resource metadata', () => {
  const endpoint = 'https://mcp.example.com/public/mcp';

  it('a valid document has no problems', () => {
    expect(
      metadataProblems(
        { resource: endpoint, authorization_servers: ['https://auth.example.com'], scopes_supported: ['a'] },
        endpoint,
      ),
    ).toEqual([]);
  });

  it('names each problem', () => {
    expect(metadataProblems([], endpoint)).toEqual(['the document is not a JSON object']);
    const problems = metadataProblems(
      { resource: 'https://other.example.com/mcp', authorization_servers: [], scopes_supported: 'a' },
      endpoint,
    );
    expect(problems).toHaveLength(3);
    expect(problems.join(' ')).toMatch(/does not identify.*authorization_servers.*scopes_supported/);
  });

  it('a resource names the endpoint, or a parent path on the same origin', () => {
    expect(resourceCovers(endpoint, endpoint)).toBe(true);
    expect(resourceCovers('https://mcp.example.com', endpoint)).toBe(true);
    expect(resourceCovers('https://mcp.example.com/public', endpoint)).toBe(true);
    expect(resourceCovers('https://mcp.example.com/pub', endpoint)).toBe(false);
    expect(resourceCovers('http://mcp.example.com/public/mcp', endpoint)).toBe(false);
    expect(resourceCovers('https://mcp.example.com/public/mcp#x', endpoint)).toBe(false);
  });

  it('well-known URIs: path-inserted first, then the root', () => {
    expect(wellKnownUrls(endpoint)).toEqual([
      'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    ]);
    expect(wellKnownUrls('https://mcp.example.com/')).toEqual([
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    ]);
  });
});

describe('authorization.insufficient-scope-403 against the --auth-token test server', () => {
  const TOKEN = 'furfly-static-test-token';
  /** Calls the tool the token's scope does not cover; the judging check then sees the refusal. */
  const callAdminTool: Check = {
    id: 'tools.test-call-admin-echo',
    section: 'tools',
    level: 'MAY',
    title: 'calls admin_echo (test only)',
    requirement: '',
    source: '',
    versions: ['2025-11-25'],
    eras: LEGACY_ONLY,
    transports: ['http'],
    async run(ctx) {
      await ctx
        .session()
        .requestUntyped('tools/call', { name: 'admin_echo', arguments: {} })
        .catch(() => undefined);
      return pass();
    },
  };
  const judge = authorizationChecks.find((check) => check.id === 'authorization.insufficient-scope-403');

  async function verdict(args: string[], withCall: boolean) {
    const server = await startHttpServer(args.length > 0 ? 'spec-breaker' : 'well-behaved', [
      ...args,
      '--auth-token',
      TOKEN,
    ]);
    const report = await runSuite(
      {
        target: { transport: 'http', url: server.url, headers: { authorization: `Bearer ${TOKEN}` } },
        timeoutMs: 5000,
        callTools: false,
        fuzz: 0,
      },
      withCall ? [callAdminTool, judge as Check] : [judge as Check],
    );
    return report.checks.find((check) => check.id === 'authorization.insufficient-scope-403');
  }

  it('403 with error="insufficient_scope" and a scope: pass', { timeout: 60_000 }, async () => {
    expect((await verdict([], true))?.status).toBe('pass');
  });

  it('answered 401 instead: a SHOULD failure', { timeout: 60_000 }, async () => {
    const result = await verdict(['--break', 'insufficient-scope-401'], true);
    expect(result).toMatchObject({ status: 'fail', level: 'SHOULD' });
    expect(result?.message).toContain('answered 401, not 403');
  });

  it('no such refusal in the run: does not apply', { timeout: 60_000 }, async () => {
    expect((await verdict([], false))?.status).toBe('skip');
  });
});
