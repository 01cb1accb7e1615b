/**
 * Whether OS sandbox tests run. With FURFLY_REQUIRE_SANDBOX=1 (CI) they always run, so a machine
 * without bubblewrap, socat, ripgrep or user namespaces fails them; otherwise they are skipped, with
 * the reason in the suite name and on the console.
 */
import { probeOsSandbox } from './os-sandbox.js';

export const sandboxRequired = process.env.FURFLY_REQUIRE_SANDBOX === '1';
const probe = await probeOsSandbox({});

/** True when the suite should be skipped. */
export const skipWithoutSandbox = !probe.available && !sandboxRequired;

/** Suite name with the skip reason appended when skipped. */
export function sandboxSuite(name: string): string {
  if (probe.available || !skipWithoutSandbox) return name;
  const reason = `the OS sandbox cannot run here (${probe.reason}; FURFLY_REQUIRE_SANDBOX=1 fails instead)`;
  console.warn(`skipping "${name}": ${reason}`);
  return `${name} [skipped: ${reason}]`;
}
