/**
 * Reading HTTP reply bodies with limits, so a huge or never-ending body cannot eat memory or hang us.
 * Bodies are Node streams read through 'data' events: no web streams, no promise per chunk.
 */
import type { Readable } from 'node:stream';
import type { HttpReply } from './http-requester.js';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** A body that closed before its end without saying why. */
class BodyClosedError extends Error {
  override name = 'BodyClosedError';
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE';

  constructor() {
    super('the reply body closed before its end');
  }
}

/**
 * Hands every chunk of `body` to `onChunk` until the body ends ('ended') or `onChunk` returns false
 * ('stopped': the listeners are gone, the caller decides what to do with the rest). Rejects with the
 * body's error when it fails or closes early. Copes with a body that already ended or failed before
 * anyone listened (the requester keeps an error listener on every body, so that can happen quietly).
 */
export function forEachChunk(
  body: Readable,
  onChunk: (chunk: Buffer) => boolean,
): Promise<'ended' | 'stopped'> {
  if (body.errored) return Promise.reject(body.errored);
  if (body.readableEnded) return Promise.resolve('ended');
  if (body.destroyed) return Promise.reject(new BodyClosedError());
  return new Promise((resolve, reject) => {
    const cleanUp = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      if (onChunk(chunk)) return;
      cleanUp();
      // A stream left flowing without a reader would drop data; paused, it just waits to be cancelled.
      body.pause();
      resolve('stopped');
    };
    const onEnd = (): void => {
      cleanUp();
      resolve('ended');
    };
    const onError = (error: Error): void => {
      cleanUp();
      reject(error);
    };
    const onClose = (): void => {
      cleanUp();
      if (body.readableEnded) resolve('ended');
      else reject(body.errored ?? new BodyClosedError());
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

const utf8 = new TextDecoder('utf-8');

function decode(chunks: Buffer[], size: number): string {
  if (chunks.length === 0) return '';
  return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}

/** The whole body as text; throws BodyTooLargeError beyond `maxBytes` (and stops the body). */
export async function readBodyText(reply: HttpReply, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const outcome = await forEachChunk(reply.body, (chunk) => {
    size += chunk.byteLength;
    if (size > maxBytes) return false;
    chunks.push(chunk);
    return true;
  });
  if (outcome === 'stopped') {
    reply.cancel();
    throw new BodyTooLargeError(`the reply body exceeds the limit of ${maxBytes} bytes`);
  }
  return decode(chunks, size);
}

/**
 * The start of an error body, for the error message. Reads at most `maxBytes` and waits at most
 * `waitMs`: a server that sends an error status and then stalls must not stall the failed request.
 * The body is stopped afterwards unless it ended.
 */
export async function readErrorBody(reply: HttpReply, maxBytes: number, waitMs: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
  });
  const reading = forEachChunk(reply.body, (chunk) => {
    chunks.push(chunk);
    size += chunk.byteLength;
    return size < maxBytes;
  });
  try {
    await Promise.race([reading, timedOut]);
  } catch {
    // A body cut short still tells us the status; what we have is enough.
  } finally {
    clearTimeout(timer);
    reading.catch(() => {}); // settles once cancel() below ends the body
    reply.cancel();
  }
  return decode(chunks, size).slice(0, maxBytes);
}

/** Read and drop a body we do not need, so the connection goes back to the pool. */
export async function drainBody(reply: HttpReply, maxBytes = 64 * 1024): Promise<void> {
  try {
    await readBodyText(reply, maxBytes);
  } catch {
    // Too big or cut: the connection is discarded instead of reused; nothing else to do.
    reply.cancel();
  }
}
