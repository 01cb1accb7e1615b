/**
 * Issue 25, item 6: FURFLY.md is a cloned repository's text. Only regular files inside the repository
 * are read, size-capped, and with known secrets masked.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Redactor } from '../redaction/index.js';
import { buildSessionContext, readFurflyNotes } from './context.js';

let base: string;
let repo: string;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'furfly-context-'));
  repo = path.join(base, 'repo');
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  mkdirSync(path.join(repo, 'src'));
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

it.each([
  ['/proc/self/environ', () => '/proc/self/environ'],
  [
    'a key outside the repository',
    () => {
      mkdirSync(path.join(base, 'home', '.ssh'), { recursive: true });
      writeFileSync(path.join(base, 'home', '.ssh', 'id_ed25519'), 'PRIVATE KEY MATERIAL');
      return path.join(base, 'home', '.ssh', 'id_ed25519');
    },
  ],
])('a FURFLY.md that is a symlink to %s is not read', (_what, target) => {
  symlinkSync(target(), path.join(repo, 'FURFLY.md'));
  writeFileSync(path.join(repo, 'src', 'FURFLY.md'), 'use tabs');
  const notes = readFurflyNotes(path.join(repo, 'src'));
  expect(notes.map((n) => n.path)).toEqual([path.join(repo, 'src', 'FURFLY.md')]);
  const context = buildSessionContext({ cwd: path.join(repo, 'src') });
  expect(context).not.toContain('PRIVATE KEY');
  expect(context).not.toMatch(/PATH=/);
});

it('a FURFLY.md symlink to another file inside the repository is read', () => {
  writeFileSync(path.join(repo, 'NOTES.md'), 'the real notes');
  symlinkSync('NOTES.md', path.join(repo, 'FURFLY.md'));
  expect(readFurflyNotes(repo).map((n) => n.text)).toEqual(['the real notes']);
});

it('a FURFLY.md that is a folder or a FIFO is skipped without blocking', async () => {
  mkdirSync(path.join(repo, 'FURFLY.md'));
  expect(readFurflyNotes(repo)).toEqual([]);
  rmSync(path.join(repo, 'FURFLY.md'), { recursive: true });
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [path.join(repo, 'FURFLY.md')]);
  expect(readFurflyNotes(repo)).toEqual([]);
});

it('a huge FURFLY.md is read only up to the cap, and says so', () => {
  writeFileSync(path.join(repo, 'FURFLY.md'), 'x'.repeat(1_000_000));
  const [note] = readFurflyNotes(repo, 100);
  expect(note!.text.startsWith('x'.repeat(100))).toBe(true);
  expect(note!.text).toContain('cut at 100 characters of 1000000 bytes');
  expect(note!.text.length).toBeLessThan(200);
});

it('known secrets in FURFLY.md are masked before the model sees them', () => {
  writeFileSync(path.join(repo, 'FURFLY.md'), 'token: sk-ant-test-0123456789abcdef');
  const context = buildSessionContext({
    cwd: repo,
    redactor: new Redactor(['sk-ant-test-0123456789abcdef']),
  });
  expect(context).toContain('token: ***');
  expect(context).not.toContain('0123456789abcdef');
});
