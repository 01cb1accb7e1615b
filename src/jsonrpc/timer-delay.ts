/**
 * Node's timers take at most 2^31-1 ms (about 24.8 days); a larger delay is silently replaced by 1 ms,
 * so a generous timeout would fire at once. Every timer built from a configurable delay goes through
 * `timerDelay`.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export function timerDelay(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS);
}
