import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOB_MAX_RESULTS, globTool } from './glob.js';
import { GREP_MAX_MATCHES, GREP_MAX_SCAN_LINE_CHARS, grepTool } from './grep.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;

beforeAll(() => {
  project = makeTempProject();
  project.write('src/b.ts', 'export const b = "needle";\n');
  project.write('src/a.ts', 'import { b } from "./b";\n// NEEDLE in caps\n');
  project.write('src/deep/c.tsx', 'const c = <div>needle</div>;\n');
  project.write('README.md', '# needle project\n');
  project.write('.git/config', 'needle in git\n');
  project.write('node_modules/pkg/index.ts', 'needle in deps\n');
  project.write('assets/blob.bin', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
  project.write('many/placeholder', '');
  for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++)
    project.write(`many/f${String(i).padStart(4, '0')}.txt`, 'needle\n');
  symlinkSync(path.join(project.root, 'src'), path.join(project.root, 'src-loop'));
});
afterAll(() => project.remove());

const glob = async (args: { pattern: string; path?: string }) => {
  const result = await globTool.execute(args, project.context());
  return { isError: result.isError, text: textOf(result.content) };
};
const grep = async (args: Parameters<typeof grepTool.execute>[0]) => {
  const result = await grepTool.execute(args, project.context());
  return { isError: result.isError, text: textOf(result.content) };
};

describe('glob', () => {
  it('lists matching files, sorted, skipping .git and node_modules and not following linked folders', async () => {
    expect((await glob({ pattern: '**/*.ts' })).text).toBe('src/a.ts\nsrc/b.ts');
    expect((await glob({ pattern: '**/*.{ts,tsx}' })).text).toBe('src/a.ts\nsrc/b.ts\nsrc/deep/c.tsx');
    expect((await glob({ pattern: '*.md' })).text).toBe('README.md');
    expect((await glob({ pattern: '**/config' })).text).toMatch(/^No files match/);
  });

  it('searches below a folder and never returns folders', async () => {
    expect((await glob({ pattern: '*', path: 'src' })).text).toBe('a.ts\nb.ts');
    expect((await glob({ pattern: 'src' })).text).toMatch(/^No files match/);
  });

  it('caps the result list with a notice', async () => {
    const { text } = await glob({ pattern: 'many/*.txt' });
    const lines = text.split('\n');
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines.at(-1)).toBe(
      `[${GLOB_MAX_RESULTS + 5} files matched; showing the first ${GLOB_MAX_RESULTS}. Narrow the pattern or path.]`,
    );
  });

  it('reports a missing folder', async () => {
    const { isError, text } = await glob({ pattern: '*', path: 'nope' });
    expect(isError).toBe(true);
    expect(text).toMatch(/nope does not exist/);
  });
});

describe('grep', () => {
  it('skips lines over GREP_MAX_SCAN_LINE_CHARS for matching and says how many', async () => {
    const own = makeTempProject();
    try {
      own.write('min.js', `${'a'.repeat(GREP_MAX_SCAN_LINE_CHARS + 1)}needle\nshort needle\n`);
      const text = textOf((await grepTool.execute({ pattern: 'needle' }, own.context())).content);
      expect(text).toContain('min.js:2:short needle');
      expect(text).not.toContain('min.js:1:');
      expect(text).toMatch(/1 line\(s\) over 10000 characters were not searched/);
    } finally {
      own.remove();
    }
  });

  it('finds lines by regular expression, skipping binaries, .git and node_modules', async () => {
    const { text } = await grep({ pattern: 'needle', glob: '*.{ts,tsx,md}' });
    expect(text).toBe(
      [
        'README.md:1:# needle project',
        'src/b.ts:1:export const b = "needle";',
        'src/deep/c.tsx:1:const c = <div>needle</div>;',
      ].join('\n'),
    );
  });

  it('supports case-insensitive search, a folder and a single file', async () => {
    expect((await grep({ pattern: 'needle', path: 'src', case_insensitive: true, glob: '*.ts' })).text).toBe(
      'src/a.ts:2:// NEEDLE in caps\nsrc/b.ts:1:export const b = "needle";',
    );
    expect((await grep({ pattern: '^import', path: 'src/a.ts' })).text).toBe(
      'src/a.ts:1:import { b } from "./b";',
    );
  });

  it('matches a glob with a slash against the relative path', async () => {
    expect((await grep({ pattern: 'needle', glob: 'src/deep/*' })).text).toBe(
      'src/deep/c.tsx:1:const c = <div>needle</div>;',
    );
  });

  it('caps matches with a notice', async () => {
    const { text } = await grep({ pattern: 'needle', path: 'many' });
    const lines = text.split('\n');
    expect(lines).toHaveLength(GREP_MAX_MATCHES + 1);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^\\[${GLOB_MAX_RESULTS + 5} matching lines; showing the first ${GREP_MAX_MATCHES}`),
    );
  });

  it('reports bad expressions and missing paths as errors, and no match as a result', async () => {
    expect(await grep({ pattern: '(' })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/invalid regular expression/),
    });
    expect((await grep({ pattern: 'x', path: 'missing' })).isError).toBe(true);
    expect(await grep({ pattern: 'zzz-not-there' })).toEqual({
      isError: false,
      text: 'No matches for /zzz-not-there/',
    });
  });
});

describe('symlinked files', () => {
  let linked: TempProject;
  let outside: TempProject;

  beforeAll(() => {
    linked = makeTempProject();
    outside = makeTempProject();
    outside.write('creds', 'SECRET-CANARY-42\n');
    linked.write('README.md', 'readme SECRET-CANARY-42 mention\n');
    linked.write('docs/real.md', 'real\n');
    symlinkSync(path.join(outside.root, 'creds'), path.join(linked.root, 'docs/notes.md'));
    symlinkSync('../README.md', path.join(linked.root, 'docs/inner.md'));
  });
  afterAll(() => {
    linked.remove();
    outside.remove();
  });

  it('are searched only when their target lies inside the search root', async () => {
    const grepped = textOf((await grepTool.execute({ pattern: 'SECRET' }, linked.context())).content);
    expect(grepped).toBe(
      'README.md:1:readme SECRET-CANARY-42 mention\ndocs/inner.md:1:readme SECRET-CANARY-42 mention'
        .split('\n')
        .sort()
        .join('\n'),
    );
    const globbed = textOf((await globTool.execute({ pattern: '**/*.md' }, linked.context())).content);
    expect(globbed).toBe('README.md\ndocs/inner.md\ndocs/real.md');
  });

  it('are not followed out of a sub-folder search root', async () => {
    const grepped = textOf(
      (await grepTool.execute({ pattern: 'SECRET', path: 'docs' }, linked.context())).content,
    );
    expect(grepped).not.toContain('docs/notes.md');
    expect(grepped).not.toContain('docs/inner.md');
  });
});
