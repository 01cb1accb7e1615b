/**
 * `echo DATA | furfly -p "summarize"`: what is piped in goes to the model after the prompt, as with
 * `claude -p`. Two things make this harder than reading to the end:
 * - stdin may be a pipe nobody writes to and nobody closes (a CI runner, an editor's task runner); reading
 *   to its end would hang forever. So we wait for the first byte only for a short while; once input
 *   has started we read it to its end, however slow the writer.
 * - stdin may be a terminal or /dev/null: nothing is piped, nothing is read.
 * Input over the limit is refused, not cut (the prompt would silently lose its end).
 */
import { fstatSync } from 'node:fs';
import type { Readable } from 'node:stream';

export type PipedInput =
  | { ok: true; text: string; note?: string }
  | { ok: false; message: string; code: number };

export interface PipedInputOptions {
  /** The most that may be piped in. */
  limit: number;
  /** How long to wait for the first byte before going on without stdin. */
  firstByteMs: number;
  /** stdin's file descriptor, to tell a pipe or file from a terminal or a device such as /dev/null. */
  fd?: number;
}

/** Whether `fd` is something data can be piped through (a pipe, a file, a socket). */
function isPipedIn(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}

export async function readPipedInput(stdin: Readable, options: PipedInputOptions): Promise<PipedInput> {
  if ((stdin as Readable & { isTTY?: boolean }).isTTY) return { ok: true, text: '' };
  if (options.fd !== undefined && !isPipedIn(options.fd)) return { ok: true, text: '' };
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: PipedInput) => {
      if (settled) return;
      settled = true;
      clearTimeout(waiting);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
      resolve(result);
    };
    const waiting = setTimeout(() => {
      // Nothing came: a pipe left open by whoever started us, not input meant for the model.
      stdin.destroy();
      finish({
        ok: true,
        text: '',
        note: `nothing arrived on stdin within ${options.firstByteMs / 1000} s, so it was not read (pipe the input in, or use -p - to wait for it)`,
      });
    }, options.firstByteMs);
    const onData = (chunk: Buffer | string) => {
      clearTimeout(waiting);
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buffer.length;
      if (size > options.limit) {
        stdin.destroy();
        finish({
          ok: false,
          code: 2,
          message: `the input on stdin is over ${options.limit / (1024 * 1024)} MB; send a smaller part, or point the agent at a file instead`,
        });
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onError = (error: Error) =>
      finish({ ok: false, code: 1, message: `cannot read stdin: ${error.message}` });
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onError);
  });
}

/** The prompt the model gets: the typed one, then what was piped in (when there was any). */
export function withPipedInput(prompt: string, piped: string): string {
  if (piped.trim() === '') return prompt;
  return prompt.trim() === '' ? piped : `${prompt}\n\n${piped}`;
}
