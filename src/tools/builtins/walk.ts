/**
 * Recursive file listing for glob and grep. Yields files as paths relative to the start folder with
 * `/` separators, skipping `.git` and `node_modules`. Unreadable folders are skipped silently: a search
 * should not fail because one corner of the tree is private.
 *
 * Symlinks: linked folders are never followed (no cycles). A link to a file is yielded only when its
 * real path lies inside the real path of the start folder; otherwise a link such as
 * `docs/notes.md -> ~/.aws/credentials` would let a search read outside the sandbox that the
 * permission check approved for the start folder.
 */
import type { Dirent } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { SKIPPED_DIRECTORIES } from './fs-helpers.js';

export async function* walkFiles(root: string, signal: AbortSignal): AsyncGenerator<string> {
  const pending: string[] = [''];
  let realRoot: string | undefined;
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
      } else if (entry.isSymbolicLink()) {
        realRoot ??= await realpath(root).catch(() => path.resolve(root));
        if (await isFileInside(path.join(root, relative), realRoot)) yield relative;
      }
    }
    // Reverse so that popping visits folders in name order (output order is sorted by the callers anyway).
    pending.push(...subdirectories.reverse());
  }
}

async function isFileInside(link: string, realRoot: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    const inside =
      target === realRoot || target.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
    return inside && (await stat(target)).isFile();
  } catch {
    return false;
  }
}

/** Plain code-unit order: stable across platforms and locales. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
