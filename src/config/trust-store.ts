/**
 * The person's trust decisions, kept in the user folder (`$FURFLY_HOME` or `~/.furflycode`) as
 * `trusted-projects.json`:
 *
 *   { "version": 1, "projects": { "<project root>": { "fingerprint": "sha256:…", "trusted_at": "<ISO time>" } } }
 *
 * A project is trusted when its entry's fingerprint equals the fingerprint of its risky parts now (see
 * trust.ts): any change to those parts makes it untrusted again. A file that cannot be read or is not in
 * this shape trusts nothing (fail closed) and is reported; it is replaced only when the person decides
 * (`furfly trust`, `--revoke`, or "y" to the session's question). Writes go through a temporary file and a rename, readable by the owner only.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const TRUST_FILE_NAME = 'trusted-projects.json';

export interface TrustEntry {
  readonly fingerprint: string;
  readonly trusted_at: string;
}

export interface TrustStoreRead {
  readonly file: string;
  readonly projects: ReadonlyMap<string, TrustEntry>;
  /** Why the file could not be used (it then trusts nothing). */
  readonly problem?: string;
}

export function trustStoreFile(userDir: string): string {
  return path.join(userDir, TRUST_FILE_NAME);
}

export function readTrustStore(userDir: string): TrustStoreRead {
  const file = trustStoreFile(userDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, projects: new Map() };
    return { file, projects: new Map(), problem: `cannot read ${file} (${code ?? 'unknown error'})` };
  }
  const projects = new Map<string, TrustEntry>();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { file, projects, problem: `${file} is not valid JSON; no project is trusted until it is fixed` };
  }
  const list = isRecord(data) && data.version === 1 && isRecord(data.projects) ? data.projects : undefined;
  if (list === undefined) {
    return {
      file,
      projects,
      problem: `${file} is not a furfly trust file (version 1); no project is trusted`,
    };
  }
  for (const [root, value] of Object.entries(list)) {
    if (isRecord(value) && typeof value.fingerprint === 'string' && typeof value.trusted_at === 'string') {
      projects.set(root, { fingerprint: value.fingerprint, trusted_at: value.trusted_at });
    }
  }
  return { file, projects };
}

export function isTrusted(store: TrustStoreRead, projectKey: string, fingerprint: string): boolean {
  return store.projects.get(projectKey)?.fingerprint === fingerprint;
}

/** Records (or replaces) the trust of one project. Throws with a plain message when the file cannot be written. */
export function recordTrust(
  userDir: string,
  projectKey: string,
  fingerprint: string,
  now = new Date(),
): void {
  const store = readTrustStore(userDir);
  const projects = new Map(store.projects);
  projects.set(projectKey, { fingerprint, trusted_at: now.toISOString() });
  writeStore(userDir, projects);
}

/** Forgets one project's trust; false when it was not in the store. */
export function revokeTrust(userDir: string, projectKey: string): boolean {
  const store = readTrustStore(userDir);
  if (!store.projects.has(projectKey)) return false;
  const projects = new Map(store.projects);
  projects.delete(projectKey);
  writeStore(userDir, projects);
  return true;
}

function writeStore(userDir: string, projects: ReadonlyMap<string, TrustEntry>): void {
  mkdirSync(userDir, { recursive: true, mode: 0o700 });
  const file = trustStoreFile(userDir);
  const out: Record<string, TrustEntry> = {};
  for (const [root, value] of [...projects].sort(([a], [b]) => a.localeCompare(b))) {
    Object.defineProperty(out, root, { value, enumerable: true, writable: true, configurable: true });
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ version: 1, projects: out }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
