/**
 * The credentials file across processes: several real node processes save logins into one store at
 * the same time and none is lost (every save re-reads and merges under the lock file); a lock left by
 * a dead process is taken over; a live one is waited for and then reported.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FileLock, STALE_LOCK_MS, TokenStore } from './token-store.js';

const WRITER = fileURLToPath(new URL('./token-store-writer.test-helpers.ts', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

/** The pid of a process that has exited (for a lock its owner left behind). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('TokenStore across processes', { timeout: 60_000 }, () => {
  it('loses no save when four processes write at once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-store-race-'));
    const names = ['p0', 'p1', 'p2', 'p3'];
    const count = 40;
    const results = await Promise.all(names.map((name) => run([dir, name, String(count)])));
    for (const r of results) expect(r.stderr).toBe('');
    for (const r of results) expect(r.code).toBe(0);
    const store = new TokenStore(dir);
    for (const name of names) {
      for (let i = 0; i < count; i++) {
        expect(store.tokensFor(`https://${name}.example/${i}`)?.access_token).toBe(`${name}-access-${i}`);
      }
    }
    // Neither the lock nor a temporary file is left behind.
    expect(readdirSync(dir)).toEqual(['oauth-credentials.json']);
  });

  it('takes over a lock whose process is gone, and one older than the stale limit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-store-stale-'));
    const store = new TokenStore(dir);
    const lock = `${store.file}.lock`;
    writeFileSync(lock, `${await deadPid()} leftover`);
    store.saveClient({ issuer: 'https://as.example', client_id: 'a', token_endpoint_auth_method: 'none' });
    expect(store.clientFor('https://as.example')?.client_id).toBe('a');

    // A live pid (this one), but the lock is older than the limit: a hung writer.
    writeFileSync(lock, `${process.pid} hung`);
    const old = (Date.now() - STALE_LOCK_MS - 5000) / 1000;
    utimesSync(lock, old, old);
    store.saveClient({ issuer: 'https://as.example', client_id: 'b', token_endpoint_auth_method: 'none' });
    expect(store.clientFor('https://as.example')?.client_id).toBe('b');
    expect(readdirSync(dir)).toEqual(['oauth-credentials.json']);
  });

  it('waits for a live lock and then says which file to remove, writing nothing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-store-live-'));
    const held = FileLock.acquire(path.join(dir, 'oauth-credentials.json.lock'));
    try {
      expect(() => FileLock.acquire(path.join(dir, 'oauth-credentials.json.lock'), 200)).toThrow(
        /oauth-credentials\.json\.lock is held by another furfly process \(pid \d+\); if none is running, remove that file/,
      );
    } finally {
      held.release();
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
