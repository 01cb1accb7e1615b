import { describe, expect, it } from 'vitest';
import type { OsSandboxPolicy } from './os-policy.js';
import { type PackageCacheIdentity, packageCacheKey } from './package-cache.js';

function identity(
  tempDir: string,
  policy: Partial<OsSandboxPolicy> = {},
  extra: Partial<PackageCacheIdentity> = {},
) {
  return {
    command: 'npx',
    args: ['-y', '@example/files-mcp@1.0.0'],
    cwd: '/work/project',
    envNames: ['HOME'],
    tempDir,
    policy: {
      writable: [tempDir],
      readOnly: ['/home/u/.furflycode'],
      unreadable: ['/home/u/.furflycode', '/home/u/.aws'],
      allowedHosts: ['registry.npmjs.org'],
      ...policy,
    },
    ...extra,
  } satisfies PackageCacheIdentity;
}

describe('packageCacheKey', () => {
  it('is the same for every start of the same server (its temp folder is new each time)', () => {
    expect(packageCacheKey(identity('/tmp/furfly-server-a'))).toBe(
      packageCacheKey(identity('/tmp/furfly-server-b')),
    );
  });

  it('does not move with the .env files found beside the project at each start', () => {
    const without = packageCacheKey(identity('/tmp/t'));
    const withEnv = packageCacheKey(
      identity('/tmp/t', { unreadable: ['/home/u/.furflycode', '/home/u/.aws', '/tmp/other/.env.local'] }),
    );
    expect(withEnv).toBe(without);
  });

  it('differs as soon as the rights or what runs differ', () => {
    const base = packageCacheKey(identity('/tmp/t'));
    const others = [
      identity('/tmp/t', { readable: ['/home/u/.aws/credentials'] }),
      identity('/tmp/t', { unreadable: ['/home/u/.furflycode'] }),
      identity('/tmp/t', { writable: ['/tmp/t', '/home/u/notes'] }),
      identity('/tmp/t', { allowedHosts: ['registry.npmjs.org', 'api.example.com'] }),
      identity('/tmp/t', {}, { args: ['-y', '@example/other-mcp@1.0.0'] }),
      identity('/tmp/t', {}, { command: 'uvx' }),
      identity('/tmp/t', {}, { cwd: '/work/other' }),
      identity('/tmp/t', {}, { envNames: ['HOME', 'GITHUB_TOKEN'] }),
    ].map(packageCacheKey);
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });
});
