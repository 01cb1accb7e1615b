import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, truncateSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool } from '../tool.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readFileTool } from './read-file.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';
import { writeFileTool } from './write-file.js';

let project: TempProject;
beforeEach(() => {
  project = makeTempProject();
});
afterEach(() => project.remove());

/**
 * Runs a call, but gives up after 10 s (a refusal takes milliseconds; the margin is for a loaded
 * machine); then a writer opens and closes the FIFO so a blocked reader ends.
 */
async function callWithDeadline(tool: AnyTool, args: object, fifo: string) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'blocked'>((resolve) => {
    timer = setTimeout(() => resolve('blocked'), 10_000);
  });
  try {
    return await Promise.race([tool.execute(args, project.context()), deadline]);
  } finally {
    clearTimeout(timer);
    try {
      // Succeeds only when a reader is blocked in open(); giving it EOF lets that thread go.
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // ENXIO: nobody is waiting.
    }
  }
}

describe('non-regular files', () => {
  it.each([
    ['read_file', readFileTool, { path: 'pipe' }],
    ['edit_file', editFileTool, { path: 'pipe', old_string: 'a', new_string: 'b' }],
    ['write_file', writeFileTool, { path: 'pipe', content: 'x' }],
  ])('%s refuses a FIFO instead of blocking on it', async (name, tool, args) => {
    const fifo = path.join(project.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const result = await callWithDeadline(tool, args, fifo);
    expect(result).not.toBe('blocked');
    if (result === 'blocked') return;
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toContain(`${name}: pipe is not a regular file`);
  });
});

describe('the read tools refuse FIFOs, devices and sockets', () => {
  let socketServer: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (socketServer ? socketServer.close(() => resolve()) : resolve()));
    socketServer = undefined;
  });

  /** A FIFO, a listening unix socket and a normal file with a match, in the project. */
  async function specialFiles(): Promise<{ fifo: string }> {
    const fifo = path.join(project.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    project.write('plain.txt', 'needle\n');
    const server = createServer();
    socketServer = server;
    await new Promise<void>((resolve) => server.listen(path.join(project.root, 'sock'), resolve));
    return { fifo };
  }

  it.each([
    ['read_file', readFileTool, (p: string) => ({ path: p }), /read_file: .* is not a regular file \(a %s\)/],
    ['grep', grepTool, (p: string) => ({ pattern: 'x', path: p }), /grep: .* is not a regular file \(a %s\)/],
    ['glob', globTool, (p: string) => ({ pattern: '*', path: p }), /glob: .* is not a folder/],
  ])('%s refuses a FIFO, a device and a socket at once', async (_name, tool, args, expected) => {
    const { fifo } = await specialFiles();
    const targets: [string, string][] = [
      ['pipe', 'FIFO'],
      ['/dev/zero', 'device'],
      ['sock', 'socket'],
    ];
    for (const [target, kind] of targets) {
      const result = await callWithDeadline(tool, args(target), fifo);
      expect(result).not.toBe('blocked');
      if (result === 'blocked') return;
      expect(result.isError).toBe(true);
      expect(textOf(result.content)).toMatch(new RegExp(expected.source.replace('%s', kind)));
    }
  });

  it('grep and glob over a folder skip the special files and find the rest', async () => {
    const { fifo } = await specialFiles();
    const grepped = await callWithDeadline(grepTool, { pattern: 'needle' }, fifo);
    expect(grepped).not.toBe('blocked');
    if (grepped === 'blocked') return;
    expect(textOf(grepped.content)).toBe('plain.txt:1:needle');
    const globbed = await callWithDeadline(globTool, { pattern: '*' }, fifo);
    expect(globbed).not.toBe('blocked');
    if (globbed === 'blocked') return;
    expect(textOf(globbed.content)).toBe('plain.txt');
  });

  it('grep does not exhaust the thread pool: eight FIFO calls at once, then a normal read', async () => {
    const { fifo } = await specialFiles();
    const calls = Array.from({ length: 8 }, () =>
      callWithDeadline(grepTool, { pattern: 'x', path: 'pipe' }, fifo),
    );
    const results = await Promise.all(calls);
    expect(results.every((r) => r !== 'blocked' && r.isError)).toBe(true);
    const read = await callWithDeadline(readFileTool, { path: 'plain.txt' }, fifo);
    expect(read).not.toBe('blocked');
    if (read === 'blocked') return;
    expect(textOf(read.content)).toContain('needle');
  });
});

describe('read_file on a huge file', () => {
  it('reads only what it shows: the first page of a 3 GiB (sparse) file', async () => {
    const file = project.write(
      'huge.log',
      Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n'),
    );
    // Sparse: takes no disk, but reading it whole is over Node's 2 GiB buffer limit.
    truncateSync(file, 3 * 1024 ** 3);
    const result = await readFileTool.execute({ path: 'huge.log', limit: 5 }, project.context());
    const text = textOf(result.content);
    expect(result.isError).toBe(false);
    expect(text).toContain('     1\tline 1\n');
    expect(text).toContain('     5\tline 5\n');
    expect(text).toMatch(/showed lines 1-5.*call again with offset 6/);
  });

  it('lets the model edit a file it read only part of, until the file changes', async () => {
    const file = project.write('big.txt', Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join('\n'));
    await readFileTool.execute({ path: 'big.txt', limit: 10 }, project.context());
    const edit = await editFileTool.execute(
      { path: 'big.txt', old_string: 'row 2\n', new_string: 'ROW 2\n' },
      project.context(),
    );
    expect(textOf(edit.content)).toMatch(/Edited/);
    project.write('big.txt', 'someone else wrote this\n');
    void file;
    const stale = await editFileTool.execute(
      { path: 'big.txt', old_string: 'someone', new_string: 'x' },
      project.context(),
    );
    expect(textOf(stale.content)).toMatch(/changed on disk/);
  });
});

describe('read_file paging over the streamed file', () => {
  it.each([
    ['a\nb\n', 2, false],
    ['a\nb\nc', 2, true],
    ['a\nb', 2, false],
    ['a\r\nb\r\n', 1, true],
  ])('%j with limit %d says more=%s', async (content, limit, more) => {
    project.write('f.txt', content);
    const text = textOf((await readFileTool.execute({ path: 'f.txt', limit }, project.context())).content);
    expect(text.includes('call again with offset')).toBe(more);
    expect(text).not.toContain('\r');
  });

  it('keeps the first page short when the last wanted line is followed by a huge line', async () => {
    const file = project.write('tail.txt', `one\ntwo\n${'z'.repeat(3 * 1024 * 1024)}`);
    void file;
    const text = textOf(
      (await readFileTool.execute({ path: 'tail.txt', limit: 2 }, project.context())).content,
    );
    expect(text).toBe(
      '     1\tone\n     2\ttwo\n[truncated at the line limit: showed lines 1-2; call again with offset 3 to continue]',
    );
  });
});
