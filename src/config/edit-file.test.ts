/**
 * Editing a config file keeps what the person wrote: for any placement of comments around the entries,
 * adding a server and removing it again leaves every comment in place and every other entry as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { editConfigFile } from './edit-file.js';
import { parseConfigText } from './parse.js';
import { toPlain } from './tree.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'furfly-edit-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINES = [
  'max_iterations: 5',
  'mcp_servers:',
  '  alpha:',
  '    type: stdio',
  '    command: node',
  '    args: [a.js]',
  '  beta:',
  '    type: http',
  '    url: https://beta.example.com/mcp',
  'permissions:',
  '  mode: strict',
];
const accept = () => [];

describe('editConfigFile', () => {
  test.prop([fc.array(fc.tuple(fc.nat(LINES.length), fc.boolean()), { maxLength: 6 })], { numRuns: 40 })(
    'add then remove keeps every comment and entry',
    (placements) => {
      const lines = [...LINES];
      const comments: string[] = [];
      // Insert from the bottom so earlier indexes stay valid; each comment unique so we can find it.
      [...placements]
        .sort((a, b) => b[0] - a[0])
        .forEach(([at, trailing], i) => {
          const comment = `# note-${i}`;
          comments.push(comment);
          if (trailing && at < lines.length) lines[at] = `${lines[at]} ${comment}`;
          else lines.splice(at, 0, `${(lines[at] ?? '').match(/^ */)?.[0] ?? ''}${comment}`);
        });
      const file = path.join(dir, 'config.yaml');
      const original = `${lines.join('\n')}\n`;
      writeFileSync(file, original);
      const added = editConfigFile(
        file,
        (doc) => doc.setIn(['mcp_servers', 'gamma'], doc.createNode({ type: 'stdio', command: 'x' })),
        accept,
        { privateFile: true },
      );
      expect(added.ok).toBe(true);
      const withGamma = readFileSync(file, 'utf8');
      for (const comment of comments) expect(withGamma).toContain(comment);
      const removed = editConfigFile(file, (doc) => doc.deleteIn(['mcp_servers', 'gamma']), accept, {
        privateFile: true,
      });
      expect(removed.ok).toBe(true);
      const after = readFileSync(file, 'utf8');
      for (const comment of comments) expect(after).toContain(comment);
      const plain = (text: string) => {
        const parsed = parseConfigText(file, text);
        if (!parsed.ok) throw new Error('unparsable');
        return toPlain(parsed.root);
      };
      expect(plain(after)).toEqual(plain(original));
      expect(Object.keys((plain(withGamma) as { mcp_servers: object }).mcp_servers)).toEqual([
        'alpha',
        'beta',
        'gamma',
      ]);
    },
  );

  it('leaves the file untouched when the check refuses the result', () => {
    const file = path.join(dir, 'refused.yaml');
    writeFileSync(file, '# keep\nmax_iterations: 5\n');
    const result = editConfigFile(
      file,
      (doc) => doc.setIn(['max_iterations'], 'many'),
      (candidate) => [`${candidate}: nope`],
      { privateFile: true },
    );
    expect(result).toEqual({ ok: false, problems: [`${file}: nope`] });
    expect(readFileSync(file, 'utf8')).toBe('# keep\nmax_iterations: 5\n');
  });
});
