/**
 * `node reaper.js <container-id>...`: removes sandbox containers by force, on behalf of a furfly that
 * is ending. A process that exits or dies of a signal cannot wait for the Docker API, so at its last
 * moment it starts this detached process (`spawnReaper`) and leaves; the containers do not outlive it
 * even when the server inside ignores the end of its stdin.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { removeContainersById } from './cleanup.js';

const SCRIPT = fileURLToPath(import.meta.url);
/** Docker ids are hex; anything else on the command line is not ours to remove. */
const CONTAINER_ID = /^[0-9a-f]{12,64}$/;

/** Starts the reaper for `ids` and returns at once; the reaper outlives this process. Never throws. */
export function spawnReaper(ids: readonly string[]): void {
  const valid = ids.filter((id) => CONTAINER_ID.test(id));
  // Under a TypeScript test runner this module is the .ts source: there is no script to start.
  if (valid.length === 0 || !SCRIPT.endsWith('.js') || !existsSync(SCRIPT)) return;
  try {
    spawn(process.execPath, [SCRIPT, ...valid], { detached: true, stdio: 'ignore' }).unref();
  } catch {
    // The process is ending; `furfly sandbox clean` removes what is left (the containers are labelled).
  }
}

if (process.argv[1] === SCRIPT) {
  const ids = process.argv.slice(2).filter((id) => CONTAINER_ID.test(id));
  removeContainersById(ids).then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
