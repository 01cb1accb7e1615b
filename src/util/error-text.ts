/**
 * The text of a caught value for a message: an Error's message (its name when the message is empty),
 * anything else as a string. The one such helper; every layer may import it.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
