/**
 * Hosts the user allowed bash commands to reach "always, for this project" (the answer to the OS
 * sandbox's network question), kept in the user folder, `project-hosts.json`:
 *
 *   { "version": 1, "projects": { "<project root>": { "allowed_hosts": ["registry.npmjs.org"] } } }
 *
 * Why not the project's own config: a repository's config is not trusted until the user trusts it,
 * and an answer given in one checkout must not travel with the repository to other people. Why a
 * file of its own beside trusted-projects.json: the trust store is keyed by a fingerprint of the
 * project config, which an allowed host must not change.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PROJECT_HOSTS_FILE_NAME = 'project-hosts.json';

export function projectHostsFile(userDir: string): string {
  return path.join(userDir, PROJECT_HOSTS_FILE_NAME);
}

/** The hosts stored for one project; none when the file is missing or not what furfly writes. */
export function readProjectHosts(userDir: string, projectKey: string): string[] {
  const projects = readAll(userDir);
  const entry = projects[projectKey];
  if (!isRecord(entry) || !Array.isArray(entry.allowed_hosts)) return [];
  return entry.allowed_hosts.filter((host): host is string => typeof host === 'string');
}

/** Adds `host` to the project's hosts (kept once). Throws with the file system's error when it cannot write. */
export function recordProjectHost(userDir: string, projectKey: string, host: string): void {
  const projects = readAll(userDir);
  const hosts = new Set(readProjectHosts(userDir, projectKey));
  hosts.add(host);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(projects)) define(out, key, value);
  define(out, projectKey, { allowed_hosts: [...hosts].sort() });
  mkdirSync(userDir, { recursive: true, mode: 0o700 });
  const file = projectHostsFile(userDir);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ version: 1, projects: out }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function readAll(userDir: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(projectHostsFile(userDir), 'utf8'));
  } catch {
    return {};
  }
  return isRecord(data) && data.version === 1 && isRecord(data.projects) ? data.projects : {};
}

/** A project root is a key like any other: `__proto__` must not reach the prototype. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
