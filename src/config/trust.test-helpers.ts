/**
 * For tests whose project config declares servers, providers or looser permissions: trusts the project
 * as it is now, as `furfly trust` would, in the given user folder (FURFLY_HOME).
 */
import { loadConfig } from './load.js';
import { recordTrust } from './trust-store.js';

export function trustProjectConfig(cwd: string, furflyHome: string, configFile?: string): void {
  const trust = loadConfig({ cwd, configFile, env: { FURFLY_HOME: furflyHome }, trustProject: true }).trust;
  if (trust === undefined) throw new Error(`the project config under ${cwd} cannot be read`);
  recordTrust(furflyHome, trust.projectKey, trust.fingerprint);
}
