/**
 * Split a command line into words the way a POSIX shell would for simple cases, without running
 * a shell: no variables, globs, pipes or redirections, so nothing in the string is ever executed.
 *
 * - Whitespace separates words.
 * - 'single quotes' keep everything literally.
 * - "double quotes" keep everything except that \" and \\ are escapes.
 * - Outside quotes, a backslash makes the next character literal (so Windows paths need quotes).
 * - Quotes may join a word: --name="a b" is one word, `--name=a b`.
 */
export class CommandLineError extends Error {}

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  let quoteStart = 0;

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      quoteStart = i;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new CommandLineError('the command line ends with a lone backslash');
      word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new CommandLineError(`unterminated ${quote} quote starting at column ${quoteStart + 1}`);
  if (inWord) words.push(word);
  return words;
}
