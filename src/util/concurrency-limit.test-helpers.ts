/**
 * At most `max` pieces of work at once, the rest waiting in order: tests that start servers and
 * processes per case (calibration fixtures, official-suite scenarios) on two cores.
 */
export function concurrencyLimit(max: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    while (running >= max) await new Promise<void>((wake) => waiting.push(wake));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
