/**
 * Opening a file the tools may read or replace, without ever blocking: `open()` on a FIFO waits for a
 * writer forever (holding one of libuv's four pool threads, so four such calls stall all file I/O and
 * even exit), a device such as /dev/zero streams without end, and opening some devices does something.
 * So the path is first checked with `stat` (which never blocks) and anything but a regular file is
 * refused unopened; then it is opened non-blocking, in case it was swapped for a FIFO in between, and
 * checked again through its own handle.
 */

import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { describeFsError } from './fs-helpers.js';

export type OpenedFile =
  | { ok: true; handle: FileHandle; info: Stats }
  | { ok: false; missing: boolean; directory: boolean; problem: string };

/** Opens `absolute` for reading if it is a regular file; `problem` is a sentence for the model. */
export async function openRegularFile(absolute: string, displayPath: string): Promise<OpenedFile> {
  try {
    const before = await stat(absolute);
    if (!before.isFile()) return notRegular(before, displayPath);
  } catch (error) {
    return failed(error, displayPath);
  }
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting; no effect on files.
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return failed(error, displayPath);
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
  return notRegular(info, displayPath);
}

function failed(error: unknown, displayPath: string): OpenedFile {
  const code = (error as NodeJS.ErrnoException).code;
  return {
    ok: false,
    missing: code === 'ENOENT',
    directory: code === 'EISDIR',
    problem: describeFsError(error, displayPath),
  };
}

function notRegular(info: Stats, displayPath: string): OpenedFile {
  const directory = info.isDirectory();
  const problem = directory
    ? `${displayPath} is a directory`
    : `${displayPath} is not a regular file (${specialKind(info)}); not opened`;
  return { ok: false, missing: false, directory, problem };
}

/** What kind of special file it is, in words. */
export function specialKind(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'a FIFO, socket or device';
}

/** The whole content of an opened file, then closes it. */
export async function readAllAndClose(opened: { handle: FileHandle }): Promise<Buffer> {
  try {
    return await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
}
