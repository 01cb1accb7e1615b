/** Small file-system helpers shared by the built-in tools. */
import path from 'node:path';
import { errorText } from '../../util/error-text.js';

/**
 * Resolves a path argument against the project root. The permission service resolves with the same
 * `path.resolve`, so what it checks and what the tool opens are the same string.
 */
export function resolveToolPath(projectRoot: string, raw: string): string {
  return path.resolve(projectRoot, raw);
}

/** How many leading bytes are inspected when deciding whether a file is binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** A NUL byte near the start is the same heuristic git and grep use. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Turns a Node fs error into a sentence the model can act on. */
export function describeFsError(error: unknown, displayPath: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `${displayPath} does not exist`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied for ${displayPath}`;
    case 'EISDIR':
      return `${displayPath} is a directory, not a file`;
    case 'ENOTDIR':
      return `a parent of ${displayPath} is not a directory`;
    case 'ELOOP':
      return `${displayPath} is a symlink loop`;
    default:
      return `${displayPath}: ${errorText(error)}`;
  }
}

/** Folders that glob and grep never descend into: huge, generated, and rarely what anyone means. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);
