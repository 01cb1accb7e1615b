/**
 * Keeps a tool result within what a conversation can afford: text beyond `maxChars` is cut, and the
 * full text is written to a private file (0600, in a 0700 folder under the OS temp dir) whose path is
 * in the notice, so a person or a later tool call can still read all of it.
 *
 * The temp dir is shared by every user of the machine, so the folder is per user (`furfly-<uid>`), and
 * it is used only if it is a real directory that this user owns and nobody else can enter: another user
 * could otherwise create it first and read every saved output, or point it elsewhere with a symlink.
 *
 * Only text counts toward the cap; images pass through (the provider adapter decides which images a
 * model takes, and up to what size).
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ContentPart, ToolResult } from '../tools/tool.js';

export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

export interface SpillOptions {
  maxChars?: number;
  /** Where full outputs are saved; `<os temp dir>/furfly-<uid>/tool-output` by default. */
  directory?: string;
  /** Goes into the file name (sanitized), so a person can tell the files apart. */
  label: string;
}

function privateRoot(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `furfly-${user}`);
}

export function defaultSpillDirectory(): string {
  return path.join(privateRoot(), 'tool-output');
}

/**
 * Creates `directory` (0700) if missing; throws unless it is then a real directory (not a symlink)
 * owned by this user with no access for group or others.
 */
export async function ensurePrivateDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const info = await lstat(directory);
  const ours = typeof process.getuid !== 'function' || info.uid === process.getuid();
  if (!info.isDirectory() || !ours || (info.mode & 0o077) !== 0) {
    throw new Error(`${directory} is not private to this user (owner, type or permissions); not used`);
  }
}

export async function capToolOutput(result: ToolResult, options: SpillOptions): Promise<ToolResult> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const texts = result.content.filter((part) => part.type === 'text');
  const total = texts.reduce((sum, part) => sum + part.text.length, 0);
  if (total <= maxChars) return result;

  const full = texts.map((part) => part.text).join('\n');
  const saved = await saveFullOutput(full, options);
  const content: ContentPart[] = [];
  let budget = maxChars;
  for (const part of result.content) {
    if (part.type !== 'text') {
      content.push(part);
      continue;
    }
    if (budget <= 0) continue;
    content.push({ type: 'text', text: part.text.slice(0, budget) });
    budget -= part.text.length;
  }
  const where = saved.ok
    ? `the full output is saved in ${saved.path}`
    : `the full output could not be saved (${saved.reason})`;
  content.push({
    type: 'text',
    text: `[output truncated: showing ${maxChars} of ${total} characters; ${where}]`,
  });
  return { isError: result.isError, content };
}

type SaveOutcome = { ok: true; path: string } | { ok: false; reason: string };

async function saveFullOutput(text: string, options: SpillOptions): Promise<SaveOutcome> {
  const directory = options.directory ?? defaultSpillDirectory();
  const label = options.label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  const file = path.join(directory, `${label}-${Date.now()}-${randomBytes(4).toString('hex')}.txt`);
  try {
    if (options.directory === undefined) await ensurePrivateDirectory(privateRoot());
    await mkdir(directory, { recursive: true, mode: 0o700 });
    // 'wx': never follow or overwrite something another user placed at that name.
    await writeFile(file, text, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
    return { ok: true, path: file };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
