import { chmodSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_FILE_MAX_BYTES, READ_FILE_MAX_LINES, readFileTool } from './read-file.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;
beforeEach(() => {
  project = makeTempProject();
});
afterEach(() => project.remove());

const read = async (args: Parameters<typeof readFileTool.execute>[0]) => {
  const result = await readFileTool.execute(args, project.context());
  return { isError: result.isError, text: textOf(result.content), result };
};

describe('read_file', () => {
  it('numbers lines from 1 and records the read in the session', async () => {
    const file = project.write('a.txt', 'one\ntwo\nthree\n');
    const { isError, text } = await read({ path: 'a.txt' });
    expect(isError).toBe(false);
    expect(text).toBe('     1\tone\n     2\ttwo\n     3\tthree');
    expect(project.context().session.lastRead(file)).toBeDefined();
  });

  it('pages with offset and limit and tells how to continue', async () => {
    project.write('long.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const { text } = await read({ path: 'long.txt', offset: 3, limit: 2 });
    expect(text).toContain('     3\tline 3\n     4\tline 4');
    expect(text).not.toContain('line 5');
    expect(text).toContain('showed lines 3-4 of 10; call again with offset 5');
    expect((await read({ path: 'long.txt', offset: 11 })).text).toMatch(
      /has 10 lines; offset 11 is past the end/,
    );
  });

  it('caps lines and bytes with a notice', async () => {
    project.write('many.txt', 'x\n'.repeat(READ_FILE_MAX_LINES + 50));
    const many = await read({ path: 'many.txt' });
    expect(many.text.split('\n')).toHaveLength(READ_FILE_MAX_LINES + 1);
    expect(many.text).toContain(`call again with offset ${READ_FILE_MAX_LINES + 1}`);

    project.write('wide.txt', `${'y'.repeat(1500)}\n`.repeat(400));
    const wide = await read({ path: 'wide.txt' });
    expect(Buffer.byteLength(wide.text)).toBeLessThan(READ_FILE_MAX_BYTES + 500);
    expect(wide.text).toContain('KiB output limit');
  });

  it.each([
    ['missing.txt', /missing.txt does not exist/],
    ['dir', /dir is a directory; use glob/],
    ['bin.dat', /looks like a binary file/],
  ])('refuses %s clearly', async (name, message) => {
    project.write('dir/inner.txt', 'x');
    project.write('bin.dat', Buffer.from([0x41, 0x00, 0x42]));
    const { isError, text } = await read({ path: name });
    expect(isError).toBe(true);
    expect(text).toMatch(message);
  });

  it.skipIf(process.getuid?.() === 0)('reports permission problems', async () => {
    const file = project.write('private.txt', 'secret');
    chmodSync(file, 0o000);
    const { isError, text } = await read({ path: 'private.txt' });
    expect(isError).toBe(true);
    expect(text).toMatch(/permission denied for private.txt/);
  });

  it('returns images as image parts', async () => {
    project.write('pic.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const { result } = await read({ path: 'pic.png' });
    expect(result.content).toEqual([{ type: 'image', mimeType: 'image/png', data: 'iVBORwAB' }]);
  });

  it('says when a file is empty', async () => {
    project.write('empty.txt', '');
    expect((await read({ path: 'empty.txt' })).text).toMatch(/is empty/);
  });
});
