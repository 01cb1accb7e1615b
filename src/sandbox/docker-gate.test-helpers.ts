/**
 * Whether sandbox tests run. With FURFLY_REQUIRE_DOCKER=1 (CI) they always run, so a missing engine
 * fails them; otherwise they are skipped, with the reason in the suite name and on the console.
 */
import { dockerAvailable } from './docker-engine.js';

export const dockerRequired = process.env.FURFLY_REQUIRE_DOCKER === '1';
const available = await dockerAvailable();

/** True when the suite should be skipped. */
export const skipWithoutDocker = !available && !dockerRequired;

/** Suite name with the skip reason appended when skipped. */
export function dockerSuite(name: string): string {
  if (!skipWithoutDocker) return name;
  const reason = 'no Docker engine reachable (set DOCKER_HOST, or FURFLY_REQUIRE_DOCKER=1 to fail instead)';
  console.warn(`skipping "${name}": ${reason}`);
  return `${name} [skipped: ${reason}]`;
}
