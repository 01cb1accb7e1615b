/**
 * The one polling helper of the tests: waits, in real time, until `check` gives a value other than
 * `undefined` or `false`, and returns it; throws `timed out waiting for <what>` after `timeoutMs`.
 * It sleeps with node:timers/promises, which fake timers leave alone. The budget only bounds a hang
 * (a loaded machine can be slow to start, reap or write); it is never a measured duration.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  intervalMs = 20,
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}
