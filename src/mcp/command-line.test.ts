import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CommandLineError, splitCommandLine } from './command-line.js';

describe('splitCommandLine', () => {
  it.each([
    ['node server.js stdio', ['node', 'server.js', 'stdio']],
    ['  node   a\tb  ', ['node', 'a', 'b']],
    [`node "my server.js" 'it''s'`, ['node', 'my server.js', 'its']],
    [`echo "say \\"hi\\" \\\\ \\n"`, ['echo', 'say "hi" \\ \\n']],
    [`echo 'no $escapes \\ here'`, ['echo', 'no $escapes \\ here']],
    [`a\\ b c`, ['a b', 'c']],
    [`--name="a b"`, ['--name=a b']],
    [`x "" ''`, ['x', '', '']],
    [`npx -y @scope/pkg --flag=1; rm -rf /`, ['npx', '-y', '@scope/pkg', '--flag=1;', 'rm', '-rf', '/']],
    ['', []],
  ])('%s', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it('rejects unterminated quotes and a trailing backslash', () => {
    expect(() => splitCommandLine(`node "abc`)).toThrow(
      new CommandLineError('unterminated " quote starting at column 6'),
    );
    expect(() => splitCommandLine(`node 'abc`)).toThrow(CommandLineError);
    expect(() => splitCommandLine('node \\')).toThrow(CommandLineError);
  });

  /** Quote a word for the splitter: single quotes, with ' written as '\'' as in sh. */
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

  test.prop([fc.array(fc.string(), { maxLength: 8 })])('quoting every word round-trips', (words) => {
    expect(splitCommandLine(words.map(quote).join(' '))).toEqual(words);
  });
});
