/** Writing generated files, and comparing a fresh generation against what is committed. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GeneratedFile {
  /** Path relative to the output root (`src/generated`), with `/` separators. */
  path: string;
  content: string;
}

/** Replaces the output folder's content with exactly these files. */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[]): void {
  rmSync(outDir, { recursive: true, force: true });
  for (const file of files) {
    const target = path.join(outDir, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}

/** Relative paths that differ between two folders (changed, missing on either side), sorted. */
export function diffFolders(expectedDir: string, actualDir: string): string[] {
  const expected = new Set(listFiles(expectedDir));
  const actual = new Set(listFiles(actualDir));
  const differing: string[] = [];
  for (const rel of new Set([...expected, ...actual])) {
    if (!expected.has(rel)) differing.push(`${rel} (should not exist)`);
    else if (!actual.has(rel)) differing.push(`${rel} (missing)`);
    else if (!readFileSync(path.join(expectedDir, rel)).equals(readFileSync(path.join(actualDir, rel)))) {
      differing.push(`${rel} (differs)`);
    }
  }
  return differing.sort();
}
