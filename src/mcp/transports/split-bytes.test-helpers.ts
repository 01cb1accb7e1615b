/**
 * Cutting a byte stream into chunks at arbitrary points, for the property tests of the decoders
 * (stdio lines, the incremental JSON parser, SSE): a reader must give the same result however the
 * bytes arrive, including cuts inside UTF-8 sequences, escapes and CRLF pairs.
 */

/** Splits `bytes` at the given offsets (taken modulo length + 1, sorted, deduplicated); empty chunks allowed. */
export function splitAt<T extends Uint8Array>(bytes: T, cuts: readonly number[]): T[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: T[] = [];
  let previous = 0;
  for (const point of points) {
    parts.push(bytes.subarray(previous, point) as T);
    previous = point;
  }
  parts.push(bytes.subarray(previous) as T);
  return parts;
}
