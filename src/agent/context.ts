/**
 * The session context the model gets with every request: where it works, on what, when, and the
 * project's own notes (`FURFLY.md` files from the git root down to the working directory, outermost
 * first, so the most specific note comes last and reads as the final word).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Per file; a note longer than this is cut with a visible marker so nobody mistakes it for the whole. */
export const FURFLY_MD_CAP_CHARS = 20_000;
export const FURFLY_MD_NAME = 'FURFLY.md';

export interface ContextOptions {
  cwd: string;
  platform?: string;
  now?: Date;
  capChars?: number;
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
    lines.push('', `Contents of ${note.path}:`, note.text);
  }
  lines.push('</session-context>');
  return lines.join('\n');
}

export interface FurflyNote {
  path: string;
  text: string;
}

export function readFurflyNotes(cwd: string, capChars = FURFLY_MD_CAP_CHARS): FurflyNote[] {
  const notes: FurflyNote[] = [];
  for (const dir of foldersFromGitRoot(path.resolve(cwd))) {
    const file = path.join(dir, FURFLY_MD_NAME);
    let text: string;
    try {
      if (!statSync(file).isFile()) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (text.length > capChars) {
      text = `${text.slice(0, capChars)}\n[... ${FURFLY_MD_NAME} cut at ${capChars} characters of ${text.length}]`;
    }
    notes.push({ path: file, text });
  }
  return notes;
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
