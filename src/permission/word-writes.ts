/**
 * Which words of a command may name a file it writes, when the table does not know how the command
 * writes.
 *
 * `writeTargets` (command-table.ts) knows the file-writing options of the common tools, but a list of
 * writers is never complete: `link h .git/hooks/pre-commit`, `uniq in ~/.furflycode/config.yaml`,
 * `iconv -o`, `sponge`, `openssl -out`, `curl --output-dir`, `yq -i` and `python3 -c "open(…,'w')"` all
 * write a file named on their command line. So the rule is turned around: every word of a command (and
 * every path-like token inside a word, for programs given inline) counts as a possible write, unless the
 * command is known to only read. The permission service then asks when one of them resolves to a
 * protected path; a word that names an ordinary file changes nothing.
 */

import type { CommandView } from './command-table.js';
import { gitSubcommand } from './command-table.js';
import { DYNAMIC, type ShellWord } from './shell-words.js';
import { unwrap, WRAPPERS } from './wrappers.js';

/**
 * Commands that never write a file named by a word (their redirections are still checked). A command
 * with a file-writing option is here only when `writeTargets` reads that option (`find -fprint`,
 * `sort -o` is not here because sort is rarely used to read a protected file).
 */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'ls',
  'dir',
  'stat',
  'file',
  'wc',
  'du',
  'df',
  'diff',
  'cmp',
  'comm',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'test',
  '[',
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'which',
  'type',
  'command',
  'man',
  'od',
  'hexdump',
  'strings',
  'nl',
  'find',
  'pwd',
  'jq',
  // Entering a folder is checked by the analyzer itself (entering a protected folder counts as a write).
  'cd',
  'pushd',
]);

/** git subcommands that only read the repository and the working tree. */
const READ_ONLY_GIT = new Set([
  'status',
  'log',
  'show',
  'diff',
  'blame',
  'annotate',
  'ls-files',
  'ls-tree',
  'grep',
  'rev-parse',
  'rev-list',
  'cat-file',
  'shortlog',
  'describe',
  'whatchanged',
  'check-ignore',
  'check-attr',
  'name-rev',
  'for-each-ref',
  'show-ref',
  'help',
  'version',
]);

/** Options whose value is a message, never a path (`git commit -m "about .git/hooks"`). */
const MESSAGE_OPTIONS = new Set(['-m', '--message']);

/** More candidate tokens than this in one command: the check gives up and asks. */
export const MAX_CANDIDATES = 512;

/**
 * True when the command is known to write no file named by its words: a read-only command, a read-only
 * git subcommand, or a wrapper whose wrapped command is inspected on its own.
 */
export function isKnownReadOnly(view: CommandView): boolean {
  if (READ_ONLY_COMMANDS.has(view.name)) return true;
  if (view.name === 'git') {
    const git = gitSubcommand(view);
    // Output options of the read-only ones (`git log --output=FILE`) are in writeTargets.
    return git !== undefined && READ_ONLY_GIT.has(git.sub);
  }
  if (WRAPPERS[view.name]) {
    const unwrapped = unwrap(view.name, view.args);
    return unwrapped.kind === 'argv' || unwrapped.kind === 'script';
  }
  return false;
}

/** Splits inline programs and `key=value` words into the path-like tokens they contain. */
const TOKEN_SEPARATORS = /[\s'"`(),;=<>|&{}]+/;

/**
 * Every word after the command name, and every token inside it that could be a path, as a possible
 * write; `undefined` when there are more than MAX_CANDIDATES (too many to resolve one by one).
 */
export function possiblyWrittenWords(view: CommandView): ShellWord[] | undefined {
  const out: ShellWord[] = [];
  const seen = new Set<string>();
  const add = (word: ShellWord, text: string, glob: boolean) => {
    if (text === '' || text.includes(DYNAMIC) || seen.has(text)) return;
    seen.add(text);
    out.push({ ...word, text, glob });
  };
  const words = view.words.slice(1);
  for (const [i, word] of words.entries()) {
    const message = MESSAGE_OPTIONS.has(words[i - 1]?.text ?? '') || word.text.startsWith('--message=');
    if (view.name === 'git' && message) continue;
    add(word, word.text, word.glob);
    const tokens = word.text.split(TOKEN_SEPARATORS);
    for (const token of tokens) {
      add(word, token, false);
      // An option with its value attached: `-o.git/hooks/x`, `-out=.git/config`.
      const attached = /^-[A-Za-z0-9](.+)$/.exec(token)?.[1];
      if (attached !== undefined) add(word, attached, false);
    }
    if (out.length > MAX_CANDIDATES) return undefined;
  }
  return out;
}
