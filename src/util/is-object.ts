/** A JSON object: not null, not an array. The one such guard; every layer may import it. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
