/**
 * Noticing that nobody reads our output any more: `furfly | head -1`, `furfly -p … | head`, or a
 * terminal that went away. Node ignores SIGPIPE, so a write to a closed pipe fails with EPIPE (EIO
 * on a hung-up terminal) and the stream emits 'error'; without a listener that error would crash the
 * process with a stack trace and leave the turn, and the MCP servers, to the exit hook.
 *
 * Both the interactive session and one-shot mode watch stdout with this: the first such error aborts
 * `signal`, the caller stops its turn, closes the MCP servers and returns `exitCode`. Later writes to
 * the dead stream fail the same way and are swallowed: there is no one left to tell.
 */
import type { Writable } from 'node:stream';

/** Exit status when stdout's reader has gone away: 128 + SIGPIPE, as a shell reports `yes | head`. */
export const EXIT_BROKEN_PIPE = 141;

/** Write errors that mean "the reader is gone" rather than "something is wrong with the output". */
const READER_GONE: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'EIO', 'ECONNRESET']);

export function isReaderGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && READER_GONE.has(code);
}

export interface OutputWatch {
  /** Aborted on the stream's first write error; its reason is that error. */
  readonly signal: AbortSignal;
  /** Resolves when `signal` aborts (never rejects), for racing against work that has nowhere to go. */
  readonly gone: Promise<void>;
  /** 141 when the reader went away, 1 for any other write error, undefined while the output works. */
  exitCode(): number | undefined;
  /** Stops watching. Write errors stay swallowed: a late write must not crash the process on its way out. */
  dispose(): void;
}

export function watchOutput(stream: Writable): OutputWatch {
  const controller = new AbortController();
  const onError = (error: Error) => {
    if (!controller.signal.aborted) controller.abort(error);
  };
  stream.on('error', onError);
  const gone = new Promise<void>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  return {
    signal: controller.signal,
    gone,
    exitCode: () => {
      if (!controller.signal.aborted) return undefined;
      return isReaderGone(controller.signal.reason) ? EXIT_BROKEN_PIPE : 1;
    },
    dispose: () => {
      stream.off('error', onError);
      if (stream.listenerCount('error') === 0) stream.on('error', ignore);
    },
  };
}

function ignore(): void {}
