/** Decoded size in bytes of base64 data, without decoding it (whitespace and padding allowed). */
export function base64Size(data: string): number {
  const trimmed = data.replace(/\s+/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}
