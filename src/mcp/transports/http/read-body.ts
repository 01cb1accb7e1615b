/**
 * Reading HTTP reply bodies with limits, so a huge or never-ending body cannot eat memory or hang us.
 */

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** The whole body as text; throws BodyTooLargeError beyond `maxBytes` (and stops reading). */
export async function readBodyText(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(`the reply body exceeds the limit of ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

/**
 * The start of an error body, for the error message. Reads at most `maxBytes` and waits at most
 * `waitMs`: a server that sends an error status and then stalls must not stall the failed request.
 */
export async function readErrorBody(response: Response, maxBytes: number, waitMs: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
  });
  try {
    while (size < maxBytes) {
      const next = await Promise.race([reader.read(), timedOut]);
      if (next === 'timeout' || next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch {
    // A body cut short still tells us the status; what we have is enough.
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks)).slice(0, maxBytes);
}

/** Read and drop a body we do not need, so the connection goes back to the pool. */
export async function drainBody(response: Response, maxBytes = 64 * 1024): Promise<void> {
  try {
    await readBodyText(response, maxBytes);
  } catch {
    // Too big or cut: the connection is discarded instead of reused; nothing else to do.
  }
}
