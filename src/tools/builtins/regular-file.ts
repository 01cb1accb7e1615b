/**
 * Opening a file the tools may read or replace, without ever blocking: `open()` on a FIFO waits for a
 * writer forever, and a device can stream without end. So the file is opened non-blocking and checked
 * through its own handle (no window between a check and the open) to be a regular file.
 */

import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { describeFsError } from './fs-helpers.js';

export type OpenedFile =
  | { ok: true; handle: FileHandle; info: Stats }
  | { ok: false; missing: boolean; directory: boolean; problem: string };

/** Opens `absolute` for reading if it is a regular file; `problem` is a sentence for the model. */
export async function openRegularFile(absolute: string, displayPath: string): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting; no effect on files.
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      missing: code === 'ENOENT',
      directory: code === 'EISDIR',
      problem: describeFsError(error, displayPath),
    };
  }
  let info: Stats;
  try {
    info = await handle.stat();
  } catch (error) {
    await handle.close();
    return { ok: false, missing: false, directory: false, problem: describeFsError(error, displayPath) };
  }
  if (info.isFile()) return { ok: true, handle, info };
  await handle.close();
  const directory = info.isDirectory();
  const problem = directory
    ? `${displayPath} is a directory`
    : `${displayPath} is not a regular file (a FIFO, socket or device); not opened`;
  return { ok: false, missing: false, directory, problem };
}

/** The whole content of an opened file, then closes it. */
export async function readAllAndClose(opened: { handle: FileHandle }): Promise<Buffer> {
  try {
    return await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
}
