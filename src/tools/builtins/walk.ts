/**
 * Recursive file listing for glob and grep. Yields files (and symlinks to files) as paths relative to
 * the start folder with `/` separators, skipping `.git` and `node_modules`. Symlinked folders are not
 * followed, which rules out cycles. Unreadable folders are skipped silently: a search should not fail
 * because one corner of the tree is private.
 */
import type { Dirent } from 'node:fs';
import { opendir, stat } from 'node:fs/promises';
import path from 'node:path';
import { SKIPPED_DIRECTORIES } from './fs-helpers.js';

export async function* walkFiles(root: string, signal: AbortSignal): AsyncGenerator<string> {
  const pending: string[] = [''];
  while (pending.length > 0) {
    if (signal.aborted) return;
    const relativeDir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = [];
      for await (const entry of await opendir(path.join(root, relativeDir))) entries.push(entry);
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(relative);
      } else if (entry.isFile()) {
        yield relative;
      } else if (entry.isSymbolicLink() && (await isFileTarget(path.join(root, relative)))) {
        yield relative;
      }
    }
    // Reverse so that popping visits folders in name order (output order is sorted by the callers anyway).
    pending.push(...subdirectories.reverse());
  }
}

async function isFileTarget(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isFile();
  } catch {
    return false;
  }
}

/** Plain code-unit order: stable across platforms and locales. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
