/**
 * Changing a config file from the command line (`furfly mcp add|remove|import`, `furfly config init`)
 * without losing what the person wrote: the file is edited as a YAML document (the `yaml` package's
 * Document keeps comments, key order and quoting), the result is checked by the real loader before it
 * replaces the file (furfly never writes a file it would then refuse), and it is written atomically
 * (a temporary file in the same folder, then a rename), so a crash never leaves half a config behind.
 */
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { type Document, parseDocument } from 'yaml';

export type EditResult =
  | { readonly ok: true; readonly created: boolean }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * The problems the loader finds in `candidate` (a complete file, not yet in place), one line each;
 * empty when furfly would accept it.
 */
export type CandidateCheck = (candidate: string) => readonly string[];

/** The file's text, or undefined when it does not exist. Other read errors are thrown. */
export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Parses the current text for editing; undefined when the YAML is broken (the loader will say where). */
export function editableDocument(text: string): Document | undefined {
  const doc = parseDocument(text, { uniqueKeys: true });
  return doc.errors.length > 0 ? undefined : doc;
}

/**
 * Applies `edit` to `file` (an empty document when it does not exist), checks the result with `check`
 * and puts it in place. A new file is private to its owner when it is the user's (`privateFile`): it may
 * hold tokens. An existing file keeps its permissions.
 */
export function editConfigFile(
  file: string,
  edit: (doc: Document) => void,
  check: CandidateCheck,
  options: { readonly privateFile: boolean },
): EditResult {
  const before = readIfExists(file);
  const doc: Document | undefined = editableDocument(before ?? '');
  if (doc === undefined) {
    // Let the loader word the syntax error, with its position.
    const problems = check(file);
    return { ok: false, problems: problems.length > 0 ? problems : [`${file}: the YAML could not be read`] };
  }
  edit(doc);
  const text = doc.toString();
  return writeChecked(file, text, check, { ...options, created: before === undefined });
}

/** Writes `text` as `file` if `check` accepts it, atomically; `exclusive`: fails with EEXIST if `file` exists. */
export function writeChecked(
  file: string,
  text: string,
  check: CandidateCheck,
  options: { readonly privateFile: boolean; readonly created: boolean; readonly exclusive?: boolean },
): EditResult {
  const folder = path.dirname(file);
  mkdirSync(folder, { recursive: true });
  const candidate = path.join(folder, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const mode = existingMode(file) ?? (options.privateFile ? 0o600 : 0o644);
  writeFileSync(candidate, text, { mode, flag: 'wx' });
  try {
    chmodSync(candidate, mode);
    const problems = check(candidate).map((line) => line.split(candidate).join(file));
    if (problems.length > 0) return { ok: false, problems };
    if (options.exclusive === true) {
      // Never replace a file that appeared meanwhile: link fails with EEXIST where rename would overwrite.
      linkSync(candidate, file);
    } else {
      renameSync(candidate, file);
    }
    return { ok: true, created: options.created };
  } finally {
    rmSync(candidate, { force: true });
  }
}

function existingMode(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}
