/**
 * The files `furfly conformance` writes besides stdout (`--junit`, `--html`), prepared before the run so
 * an unwritable path does not throw away a finished run.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The output file cannot be written: a usage error (exit 2). */
export class OutputFolderError extends Error {}

/**
 * Creates the file's folder when missing (CI writes `reports/junit.xml` into a fresh checkout), then
 * checks it is a writable folder.
 */
export function prepareOutputFolder(file: string, flag: string): void {
  const folder = path.dirname(path.resolve(file));
  try {
    mkdirSync(folder, { recursive: true });
    if (!statSync(folder).isDirectory()) throw new Error('not a folder');
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = typeof code === 'string' ? ` (${code})` : '';
    throw new OutputFolderError(`${flag}: cannot create or write to folder ${folder}${why}`);
  }
}
