import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from './edit-file.js';
import { readFileTool } from './read-file.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';
import { writeFileTool } from './write-file.js';

let project: TempProject;
beforeEach(() => {
  project = makeTempProject();
});
afterEach(() => project.remove());

const readIt = (path: string) => readFileTool.execute({ path }, project.context());
const edit = async (args: Parameters<typeof editFileTool.execute>[0]) => {
  const result = await editFileTool.execute(args, project.context());
  return { isError: result.isError, text: textOf(result.content) };
};

describe('write_file', () => {
  it('creates missing parent folders', async () => {
    const result = await writeFileTool.execute({ path: 'a/b/c.txt', content: 'hi' }, project.context());
    expect(result.isError).toBe(false);
    expect(readFileSync(`${project.root}/a/b/c.txt`, 'utf8')).toBe('hi');
  });

  it('refuses to replace a file that was not read, or changed since it was read', async () => {
    const file = project.write('x.txt', 'old');
    const unread = await writeFileTool.execute({ path: 'x.txt', content: 'new' }, project.context());
    expect(textOf(unread.content)).toMatch(/has not been read in this session/);
    await readIt('x.txt');
    writeFileSync(file, 'changed behind our back');
    const stale = await writeFileTool.execute({ path: 'x.txt', content: 'new' }, project.context());
    expect(textOf(stale.content)).toMatch(/changed on disk since it was last read/);
    await readIt('x.txt');
    expect((await writeFileTool.execute({ path: 'x.txt', content: 'new' }, project.context())).isError).toBe(
      false,
    );
    expect(readFileSync(file, 'utf8')).toBe('new');
  });
});

describe('edit_file', () => {
  it('refuses a file that was not read in this session', async () => {
    const file = project.write('a.ts', 'const a = 1;\n');
    const { isError, text } = await edit({ path: 'a.ts', old_string: '1', new_string: '2' });
    expect(isError).toBe(true);
    expect(text).toMatch(/has not been read in this session; read it with read_file first/);
    expect(readFileSync(file, 'utf8')).toBe('const a = 1;\n');
  });

  it('refuses when the file changed on disk after it was read', async () => {
    const file = project.write('a.ts', 'const a = 1;\n');
    await readIt('a.ts');
    writeFileSync(file, 'const a = 1; // touched\n');
    const { text } = await edit({ path: 'a.ts', old_string: '1', new_string: '2' });
    expect(text).toMatch(/changed on disk since it was last read/);
  });

  it('replaces a unique match and allows a follow-up edit without re-reading', async () => {
    const file = project.write('a.ts', 'const a = 1;\nconst b = 2;\n');
    await readIt('a.ts');
    expect(await edit({ path: 'a.ts', old_string: 'a = 1', new_string: 'a = $& 10' })).toEqual({
      isError: false,
      text: 'Edited a.ts: replaced 1 occurrence',
    });
    expect((await edit({ path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' })).isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('const a = $& 10;\nconst b = 3;\n');
  });

  it('distinguishes zero matches from several', async () => {
    project.write('a.ts', 'x x x\n');
    await readIt('a.ts');
    expect((await edit({ path: 'a.ts', old_string: 'y', new_string: 'z' })).text).toMatch(
      /was not found in a.ts/,
    );
    expect((await edit({ path: 'a.ts', old_string: 'x', new_string: 'z' })).text).toMatch(
      /occurs 3 times in a.ts/,
    );
    expect(await edit({ path: 'a.ts', old_string: 'x', new_string: 'z', replace_all: true })).toEqual({
      isError: false,
      text: 'Edited a.ts: replaced 3 occurrences',
    });
  });

  it('rejects a no-op edit and missing files', async () => {
    expect((await edit({ path: 'a.ts', old_string: 'x', new_string: 'x' })).text).toMatch(/identical/);
    expect((await edit({ path: 'nope.ts', old_string: 'x', new_string: 'y' })).text).toMatch(
      /nope.ts does not exist/,
    );
  });
});
