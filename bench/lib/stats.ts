/** Order statistics over measurements. Medians are what the report shows; nothing here is clever. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 1000 samples is the 990th, a value that was actually observed.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * How far the values spread, relative to their median: (max - min) / median. With the few rounds a
 * bench run has (3 by default), the full range is the honest measure: an interquartile range of three
 * values would hide one of them. 0 for a single value; NaN for none.
 */
export function relativeRange(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const mid = median(values);
  return (Math.max(...values) - Math.min(...values)) / mid;
}
