/**
 * The one door to testcontainers. Its environment must be set before it is first used, and loading it
 * lazily keeps the (large) library out of every furfly command that never runs a sandbox.
 */
import type * as Testcontainers from 'testcontainers';

/**
 * Defaults furfly needs and the user may override: Ryuk (testcontainers' reaper) is itself an image that
 * would have to be pulled, which furfly never can rely on (containers carry our own label instead, see
 * `furfly sandbox clean`); and the host override avoids a network lookup that fails when furfly itself
 * runs inside a container.
 */
const TESTCONTAINERS_DEFAULTS: Readonly<Record<string, string>> = {
  TESTCONTAINERS_RYUK_DISABLED: 'true',
  TESTCONTAINERS_HOST_OVERRIDE: 'localhost',
};

/** Sets each default the user has not set. Exported for tests. */
export function applyTestcontainersDefaults(env: NodeJS.ProcessEnv = process.env): void {
  for (const [key, value] of Object.entries(TESTCONTAINERS_DEFAULTS)) {
    if (env[key] === undefined) env[key] = value;
  }
}

let loaded: Promise<typeof Testcontainers> | undefined;

export function loadTestcontainers(): Promise<typeof Testcontainers> {
  applyTestcontainersDefaults();
  loaded ??= import('testcontainers');
  return loaded;
}
