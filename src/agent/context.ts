/**
 * The session context the model gets with every request: where it works, on what, when, and the
 * project's own notes (`FURFLY.md` files from the git root down to the working directory, outermost
 * first, so the most specific note comes last and reads as the final word).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Redactor } from '../redaction/index.js';

/** Per file; a note longer than this is cut with a visible marker so nobody mistakes it for the whole. */
export const FURFLY_MD_CAP_CHARS = 20_000;
export const FURFLY_MD_NAME = 'FURFLY.md';

export interface ContextOptions {
  cwd: string;
  platform?: string;
  now?: Date;
  capChars?: number;
  /** Masks known secrets in the notes, as in tool results. */
  redactor?: Redactor;
}

export function buildSessionContext(options: ContextOptions): string {
  const now = options.now ?? new Date();
  const lines = [
    '<session-context>',
    `Working directory: ${options.cwd}`,
    `Platform: ${options.platform ?? process.platform}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
  ];
  for (const note of readFurflyNotes(options.cwd, options.capChars ?? FURFLY_MD_CAP_CHARS)) {
    lines.push(
      '',
      `Contents of ${note.path}:`,
      options.redactor ? options.redactor.text(note.text) : note.text,
    );
  }
  lines.push('</session-context>');
  return lines.join('\n');
}

export interface FurflyNote {
  path: string;
  text: string;
}

/**
 * The FURFLY.md files from the git root down to `cwd`. A cloned repository chooses what these files are,
 * so one is read only when it is a regular file whose real path lies inside the repository (a symlink to
 * `/proc/self/environ` or `~/.ssh/id_ed25519` is skipped, and so is a FIFO or a device), and only its
 * first `capChars` characters' worth of bytes are read.
 */
export function readFurflyNotes(cwd: string, capChars = FURFLY_MD_CAP_CHARS): FurflyNote[] {
  const notes: FurflyNote[] = [];
  const folders = foldersFromGitRoot(path.resolve(cwd));
  let root: string;
  try {
    root = realpathSync.native(folders[0]!);
  } catch {
    return notes;
  }
  for (const dir of folders) {
    const file = path.join(dir, FURFLY_MD_NAME);
    const text = readNote(file, root, capChars);
    if (text !== undefined) notes.push({ path: file, text });
  }
  return notes;
}

function readNote(file: string, root: string, capChars: number): string | undefined {
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return undefined;
  }
  const relative = path.relative(root, real);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  let fd: number;
  try {
    // No following a symlink swapped in after the check; no blocking on a FIFO.
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    // A UTF-8 character has at most 4 bytes: this many bytes hold capChars characters and one more.
    const limit = Math.min(stat.size, capChars * 4 + 4);
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const got = readSync(fd, buffer, filled, limit - filled, filled);
      if (got === 0) break;
      filled += got;
    }
    let text = buffer.subarray(0, filled).toString('utf8');
    if (text.length > capChars || stat.size > filled) {
      const total = stat.size > filled ? `${stat.size} bytes` : `${text.length} characters`;
      text = `${text.slice(0, capChars)}\n[... ${FURFLY_MD_NAME} cut at ${capChars} characters of ${total}]`;
    }
    return text;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The git root (nearest folder with `.git`) and each folder below it down to `cwd`; just `cwd` outside git. */
export function foldersFromGitRoot(cwd: string): string[] {
  const chain: string[] = [];
  let dir = cwd;
  for (;;) {
    chain.push(dir);
    if (existsSync(path.join(dir, '.git'))) return chain.reverse();
    const parent = path.dirname(dir);
    if (parent === dir) return [cwd];
    dir = parent;
  }
}
