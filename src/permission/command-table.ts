/**
 * The destructive-command table: one row per pattern that can lose data, damage the system, hand
 * control to someone else or reach another process's secrets. Rows match one simple command after
 * the checker has resolved it (quotes removed, wrappers peeled off: `sudo timeout 5 rm -rf x` is
 * also checked as `rm -rf x`), or a pipeline.
 *
 * Rows are data: `docs/security.md` lists them; `commands` names what a row looks at, so the checker
 * knows which commands' arguments matter (a computed argument to `rm` asks, one to `echo` does not).
 *
 * `scope: 'every-mode'` rows ask in every mode but bypass, even against an allow rule (like edits to
 * protected paths); the others make auto mode ask.
 */
import path from 'node:path';
import { DYNAMIC, type ShellWord } from './shell-words.js';

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `<<<`, `<<`, `&>`, `>&`, … */
  op: string;
  target: ShellWord;
  /** For `<<`/`<<-`: the body, and whether its delimiter was quoted (then nothing in it expands). */
  heredoc?: { body: string; quoted: boolean };
}

/** One simple command as it will run: `sudo FOO=1 /bin/rm -rf x` gives views for sudo and rm. */
export interface CommandView {
  /** The program's base name (`/usr/bin/rm` → `rm`). */
  name: string;
  /** Arguments after quote removal; DYNAMIC marks parts decided at run time. */
  args: string[];
  /** The same arguments with what is known about each. */
  words: ShellWord[];
  redirects: readonly ShellRedirect[];
  /** Commands that run inside this command's `$( )`, backticks and `<( )`. */
  substituted: readonly CommandView[];
}

export type RuleScope = 'auto' | 'every-mode';

export interface DestructiveRule {
  id: string;
  /** Why it is dangerous, for a person. */
  description: string;
  /** Command names the row looks at (`*`: every command, e.g. for redirections). */
  commands: readonly string[];
  scope?: RuleScope;
  matchCommand?(command: CommandView): boolean;
  /** For rules about how commands are connected; each stage lists the commands it runs. */
  matchPipeline?(stages: readonly CommandView[][]): boolean;
}

// ---------- helpers used by the rules ----------

/** Options before `--`; long options verbatim, short clusters as given (`-rf`). */
export function optionsOf(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.startsWith('-') && arg.length > 1) out.push(arg);
  }
  return out;
}

/**
 * True when a short-option cluster (`-rf`, `-Rv`) contains `letter`, or a long option is present.
 * GNU getopt and git accept any unambiguous prefix of a long option (`--recur` is `--recursive`), so a
 * prefix counts too; an ambiguous prefix is rejected by the tool itself, so over-matching it only asks.
 */
export function hasOption(args: readonly string[], letter: string | undefined, ...long: string[]): boolean {
  return optionsOf(args).some((option) => {
    if (option.startsWith('--')) {
      const name = option.split('=', 1)[0]!;
      return name.length > 2 && long.some((l) => l.startsWith(name));
    }
    return letter !== undefined && /^-[A-Za-z0-9]+$/.test(option) && option.includes(letter);
  });
}

export function positionals(args: readonly string[]): string[] {
  const out: string[] = [];
  let afterDashes = false;
  for (const arg of args) {
    if (!afterDashes && arg === '--') afterDashes = true;
    else if (afterDashes || !arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

/** Indexes of the positional arguments (as `positionals`). */
function positionalIndexes(args: readonly string[]): number[] {
  const out: number[] = [];
  let afterDashes = false;
  args.forEach((arg, i) => {
    if (!afterDashes && arg === '--') afterDashes = true;
    else if (afterDashes || !arg.startsWith('-') || arg === '-') out.push(i);
  });
  return out;
}

const GIT_OPTIONS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
  '--super-prefix',
  '--list-cmds',
]);

/** `git -C dir push --force` → { sub: 'push', args: ['--force'], globals: ['-C', 'dir'] }. */
export function gitSubcommand(
  command: CommandView,
): { sub: string; args: string[]; globals: string[] } | undefined {
  if (command.name !== 'git') return undefined;
  for (let i = 0; i < command.args.length; i++) {
    const arg = command.args[i]!;
    if (GIT_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) {
      return { sub: arg, args: command.args.slice(i + 1), globals: command.args.slice(0, i) };
    }
  }
  return undefined;
}

const BLOCK_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|loop|mapper\/|sr)/;
const SYSTEM_PATH = /^\/(?:etc|boot|bin|sbin|lib|lib32|lib64|usr|sys|proc\/sys)(?:\/|$)/;
export const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

/**
 * The words a command writes to (creates, overwrites, truncates, deletes or changes the mode of):
 * write redirections, `tee` files, `cp`/`mv`/`install`/`ln` targets, `dd of=`, `sed -i`/`perl -i`
 * files, `truncate`/`touch`/`rm`/`chmod`… operands, `sort -o`, `curl -o`, `wget -O`.
 */
export function writeTargets(command: CommandView): ShellWord[] {
  const out: ShellWord[] = [];
  for (const r of command.redirects) {
    if (WRITE_REDIRECTS.has(r.op)) out.push(r.target);
    else if (r.op === '>&' && !/^(?:\d+-?|-)$/.test(r.target.text)) out.push(r.target);
  }
  const { name, args } = command;
  // words[0] is the command name; argument i is words[i + 1].
  const words = command.words.slice(1);
  const at = (indexes: number[]) => indexes.map((i) => words[i]!).filter(Boolean);
  const pos = positionalIndexes(args);
  const optionValues = (short: string | undefined, ...long: string[]): ShellWord[] => {
    const found: ShellWord[] = [];
    const next = (i: number) => (words[i + 1] ? [words[i + 1]!] : []);
    args.forEach((arg, i) => {
      const word = words[i]!;
      if (long.includes(arg)) found.push(...next(i));
      for (const l of long) {
        if (arg.startsWith(`${l}=`)) found.push({ ...word, text: arg.slice(l.length + 1) });
      }
      // A short option as getopt reads it: alone (`-o FILE`), attached (`-oFILE`) or at the end of a cluster
      // (`-sSLo FILE`). A letter earlier in the cluster may take the rest as its own value; counting the
      // write anyway only asks more.
      if (short === undefined || arg.startsWith('--') || !/^-[A-Za-z0-9]/.test(arg)) return;
      const at = arg.indexOf(short.slice(1), 1);
      if (at === -1 || !/^-[A-Za-z0-9]*$/.test(arg.slice(0, at))) return;
      const rest = arg.slice(at + 1);
      if (rest === '') found.push(...next(i));
      else found.push({ ...word, text: rest });
    });
    return found;
  };
  switch (name) {
    case 'tee':
      out.push(...at(pos));
      break;
    case 'cp':
    case 'install':
    case 'ln':
    case 'rsync':
    case 'scp': {
      const targets = optionValues('-t', '--target-directory');
      if (targets.length > 0) out.push(...targets);
      else if (pos.length > 1 || (name === 'ln' && pos.length === 1)) out.push(...at(pos.slice(-1)));
      break;
    }
    case 'mv':
      out.push(...optionValues('-t', '--target-directory'), ...at(pos));
      break;
    case 'dd':
      for (const word of words) {
        if (word.text.startsWith('of=')) out.push({ ...word, text: word.text.slice(3) });
      }
      break;
    case 'truncate':
    case 'touch':
    case 'rm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
    case 'mkdir':
    case 'mkfifo':
      out.push(...at(pos));
      break;
    case 'chmod':
    case 'chown':
    case 'chgrp':
      // The first operand is the mode or owner, unless --reference gave it.
      out.push(...at(args.some((a) => a.startsWith('--reference')) ? pos : pos.slice(1)));
      break;
    case 'sed':
    case 'perl': {
      const scriptGiven = args.some((a) => /^-[^-]*[ef]$/.test(a) || a.startsWith('--expression'));
      if (hasOption(args, 'i', '--in-place') || args.some((a) => /^-[^-]*i/.test(a))) {
        out.push(...at(scriptGiven || name === 'perl' ? pos : pos.slice(1)));
      }
      if (name === 'sed') {
        const scripts = scriptGiven ? optionValues('-e', '--expression') : at(pos.slice(0, 1));
        out.push(...scripts.flatMap(sedWriteFiles));
      }
      break;
    }
    case 'sort':
      out.push(...optionValues('-o', '--output'));
      break;
    case 'tar':
      // Extraction writes into the -C folder (what the archive holds is not known; see the limits).
      out.push(...optionValues('-C', '--directory'));
      break;
    case 'unzip':
      out.push(...optionValues('-d'));
      break;
    case 'curl':
      out.push(...optionValues('-o', '--output'));
      break;
    case 'wget':
      out.push(...optionValues('-O', '--output-document'), ...optionValues('-P', '--directory-prefix'));
      break;
    case 'patch':
      out.push(...optionValues('-o', '--output'));
      break;
    case 'xxd':
      // `xxd [options] [infile [outfile]]`
      out.push(...at(pos.slice(1, 2)));
      break;
    case 'find':
      // `-fprint FILE`, `-fprintf FILE FORMAT`: the format is any text, a script included.
      out.push(...optionValues(undefined, '-fprint', '-fprint0', '-fprintf', '-fls'));
      break;
    case 'git':
      out.push(...gitWrites(command, optionValues));
      break;
  }
  return out;
}

/**
 * The files a sed script's `w FILE`, `W FILE` commands and `s///w FILE` flag write. The file name runs to
 * the end of the line. Every `w` or `W` is taken as a possible start, so a `w` inside a pattern gives a
 * bogus name too; a bogus name only matters if it names a protected path, and then asking is right.
 * A computed script is not read (`sed "s/$a/$b/"` is everyday work; see the limits in docs/security.md).
 */
function sedWriteFiles(script: ShellWord): ShellWord[] {
  if (!script.isStatic) return [];
  const out: ShellWord[] = [];
  for (const line of script.text.split('\n')) {
    for (const m of line.matchAll(/[wW][ \t]*/g)) {
      const file = line.slice(m.index + m[0].length).trim();
      if (file !== '') out.push({ ...script, text: file });
    }
  }
  return out;
}

/**
 * Files git writes when asked: `--output` of the diff and log family and of `archive`, `-o` of
 * `archive` and `format-patch`, `--output-directory`, `checkout-index --prefix`, `bundle create FILE`.
 */
function gitWrites(
  command: CommandView,
  optionValues: (short: string | undefined, ...long: string[]) => ShellWord[],
): ShellWord[] {
  const git = gitSubcommand(command);
  if (git === undefined) return [];
  const out = optionValues(undefined, '--output', '--output-directory');
  if (git.sub === 'archive' || git.sub === 'format-patch') out.push(...optionValues('-o'));
  if (git.sub === 'checkout-index') out.push(...optionValues(undefined, '--prefix'));
  if (git.sub === 'bundle' && git.args[0] === 'create') {
    const file = command.words.slice(1)[command.args.length - git.args.length + 1];
    if (file) out.push(file);
  }
  return out;
}

/** A path as the kernel would see it, for matching system locations: `//etc/./x/../passwd` → `/etc/passwd`. */
export function normalizedPath(text: string, cwd: string): string {
  return path.posix.isAbsolute(text) ? path.posix.normalize(text) : path.posix.resolve(cwd, text);
}

function writesTo(command: CommandView, target: RegExp, cwd: string): boolean {
  return writeTargets(command).some((w) => w.isStatic && target.test(normalizedPath(w.text, cwd)));
}

export const DOWNLOADERS = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'http',
  'https',
  'xh',
  'lwp-request',
  'GET',
]);
export const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'fish',
  'csh',
  'tcsh',
  'ash',
  'yash',
  'rbash',
]);
/** Redirections that give a command its stdin from somewhere other than the pipe. */
export const STDIN_REDIRECTS = new Set(['<', '<<', '<<-', '<<<', '<>', '<&']);
const INTERPRETERS = new Set([
  ...SHELLS,
  'python',
  'python2',
  'python3',
  'perl',
  'ruby',
  'node',
  'nodejs',
  'deno',
  'bun',
  'php',
  'pwsh',
  'powershell',
  'lua',
  'Rscript',
  'tclsh',
  'awk',
  'gawk',
]);

export function isInterpreterName(name: string): boolean {
  return INTERPRETERS.has(name) || /^python\d+(\.\d+)?$/.test(name);
}

/** True when an interpreter would execute what arrives on stdin (`sh`, `bash -s`, `python -`). */
export function interpreterReadsStdin(command: CommandView): boolean {
  if (!isInterpreterName(command.name) || command.name === 'awk' || command.name === 'gawk') return false;
  const options = optionsOf(command.args);
  if (SHELLS.has(command.name) && options.some((o) => /^-[a-z]*s/.test(o))) return true;
  // `-c`/`-e`/`-m`/`-r` take the program from the command line, so stdin is just data.
  if (options.some((o) => /^-[A-Za-z]*[cemr]$/.test(o) || o === '--eval' || o === '--command')) return false;
  const [first] = positionals(command.args);
  return first === undefined || first === '-' || first === '/dev/stdin';
}

const runsEverywhere = (command: CommandView): boolean =>
  isInterpreterName(command.name) || ['eval', 'source', '.'].includes(command.name);

/**
 * A per-process entry of /proc (another process's environment, memory, open files), or /proc as a
 * whole (a recursive search would read every process's environment). Global files such as
 * /proc/cpuinfo are fine. DYNAMIC stands for a computed part (`/proc/$PPID/environ`).
 */
const PROC_GLOBAL = new Set([
  'cpuinfo',
  'meminfo',
  'loadavg',
  'version',
  'uptime',
  'stat',
  'mounts',
  'filesystems',
  'partitions',
  'swaps',
  'diskstats',
  'vmstat',
  'zoneinfo',
  'buddyinfo',
  'interrupts',
  'devices',
  'modules',
  'cmdline',
  'sys',
  'net',
  'pressure',
  'cgroups',
  'crypto',
  'misc',
]);

export function touchesProcessSecrets(text: string, glob = false): boolean {
  const normalized = text.startsWith('/') ? path.posix.normalize(text) : text;
  // `/p*/1/env*`: a pattern whose first segment could match "proc" may reach any of it.
  if (
    glob &&
    /[*?[]/.test(normalized.split('/')[1] ?? '') &&
    globSegmentMatches(normalized.split('/')[1]!, 'proc')
  ) {
    return normalized.startsWith('/');
  }
  for (const match of normalized.matchAll(/(?:^|[^A-Za-z0-9_.-])\/+proc(?:\/+([^/\s'"]*))?/g)) {
    const entry = match[1];
    if (entry === undefined || entry === '' || !PROC_GLOBAL.has(entry)) return true;
  }
  // `cd /proc/$PPID; cat environ` or `find / -name environ`: the file names alone.
  return (
    /(?:^|\/)environ(?:$|\/)|\/(?:mem|pagemap|map_files)(?:$|\/)/.test(normalized) ||
    normalized.includes(DYNAMIC + '/environ')
  );
}

/** Whether a glob segment (`p*`, `?roc`, `[p]roc`) matches `name`. */
function globSegmentMatches(pattern: string, name: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) source += '\\[';
      else {
        source += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return true;
  }
}

const PTRACE_TOOLS = new Set([
  'strace',
  'ltrace',
  'gdb',
  'gdbserver',
  'lldb',
  'gcore',
  'gstack',
  'pstack',
  'eu-stack',
  'bpftrace',
  'criu',
  'pyrasite',
  'py-spy',
  'rbspy',
  'dtrace',
  'perf',
  'valgrind',
]);

const GIT_SAFE_CONFIG_KEYS = new Set([
  'user.name',
  'user.email',
  'user.signingkey',
  'init.defaultbranch',
  'core.autocrlf',
  'core.eol',
  'core.filemode',
  'core.ignorecase',
  'pull.rebase',
  'pull.ff',
  'push.default',
  'push.autosetupremote',
  'merge.ff',
  'fetch.prune',
  'rebase.autostash',
  'advice.detachedhead',
  'color.ui',
  'commit.gpgsign',
  'tag.gpgsign',
  'log.date',
  'status.showuntrackedfiles',
]);

const GIT_CONFIG_READ_OPTIONS =
  /^--(?:get|get-all|get-regexp|get-urlmatch|get-color|get-colorbool|list|show-origin|show-scope|name-only|null|includes|no-includes|type|bool|int|path|expiry-date|default|global|system|local|worktree|file|blob|fixed-value|z)(?:=|$)|^-[lz]$|^-f$/;

/**
 * `git config` that changes a setting other than a few harmless ones: many settings run programs
 * (core.fsmonitor, core.pager, alias.x=!cmd, *.helper, filters, hooksPath) and some turn off safety
 * (clean.requireForce, receive.denyDeletes, transfer.fsckObjects, safe.directory).
 */
function gitConfigChangesSetting(args: readonly string[]): boolean {
  const sub = args[0];
  if (sub === 'get' || sub === 'list') return false;
  if (
    sub === 'set' ||
    sub === 'unset' ||
    sub === 'edit' ||
    sub === 'rename-section' ||
    sub === 'remove-section'
  ) {
    const key = positionals(args.slice(1))[0];
    return sub !== 'set' || key === undefined || !GIT_SAFE_CONFIG_KEYS.has(key.toLowerCase());
  }
  const options = optionsOf(args);
  const writes = options.some((o) => !GIT_CONFIG_READ_OPTIONS.test(o));
  const values = positionals(
    args.filter(
      (_a, i) => !(i > 0 && ['-f', '--file', '--blob', '--type', '--default'].includes(args[i - 1]!)),
    ),
  );
  if (!writes && values.length <= 1) return false;
  const key = values[0];
  return key === undefined || !GIT_SAFE_CONFIG_KEYS.has(key.toLowerCase());
}

/** Options of git subcommands that run a program given on the command line. */
function gitRunsCommand(sub: string, args: readonly string[]): boolean {
  switch (sub) {
    case 'clone':
    case 'fetch':
    case 'pull':
    case 'ls-remote':
    case 'archive':
    case 'push':
      return (
        hasOption(
          args,
          sub === 'clone' ? 'u' : undefined,
          '--upload-pack',
          '--receive-pack',
          '--exec',
          '--config',
        ) ||
        (sub === 'clone' && (hasOption(args, 'c') || hasOption(args, undefined, '--template')))
      );
    case 'rebase':
      return hasOption(args, 'x', '--exec');
    case 'init':
      // Hooks come from the template folder and run at once (post-checkout during a clone).
      return hasOption(args, undefined, '--template');
    case 'grep':
      return (
        optionsOf(args).some((o) => o.startsWith('-O')) || hasOption(args, undefined, '--open-files-in-pager')
      );
    case 'send-email':
      return true;
    case 'submodule':
      return args.includes('foreach');
    case 'bisect':
      return args[0] === 'run';
    case 'filter-branch':
    case 'difftool':
    case 'mergetool':
      return true;
    default:
      return false;
  }
}

/** Options that make a tool run a program named in the option's value. */
const COMMAND_RUNNING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rg: ['--pre'],
  fd: ['-x', '--exec', '-X', '--exec-batch'],
  fdfind: ['-x', '--exec', '-X', '--exec-batch'],
  tar: [
    '--to-command',
    '--use-compress-program',
    '-I',
    '--checkpoint-action',
    '--info-script',
    '-F',
    '--new-volume-script',
    '--rsh-command',
  ],
  rsync: ['-e', '--rsh', '--rsync-path'],
  sort: ['--compress-program'],
  man: ['-P', '--pager', '-H', '--html'],
  zip: ['-TT', '--unzip-command'],
  tcpdump: ['-z'],
  less: ['-o'],
  vim: ['-c', '--cmd', '-S'],
  nvim: ['-c', '--cmd', '-S'],
  ssh: ['-o', '-F'],
  scp: ['-o', '-F', '-S'],
};

const VI_FAMILY = new Set([
  'vi',
  'vim',
  'nvim',
  'ex',
  'view',
  'rvim',
  'rview',
  'vimdiff',
  'gvim',
  'evim',
  'nex',
  'nvi',
  'elvis',
  'vile',
]);

/** `-c CMD`, `+CMD` (but not `+42`, a line number), `--cmd`, `-S FILE`, or ex/silent mode reading commands from stdin. */
function editorRunsCommands(c: CommandView): boolean {
  for (const arg of optionsOrPlus(c.args)) {
    if (arg.startsWith('+')) {
      if (!/^\+\d*$/.test(arg)) return true;
    } else if (arg.startsWith('--')) {
      if (/^--(?:cmd|startuptime)?(?:=|$)/.test(arg) && arg !== '--') return true;
    } else if (/[cSesE]/.test(arg.slice(1))) return true;
  }
  return c.name === 'ex' || c.name === 'nex';
}

function optionsOrPlus(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (arg === '--') break;
    if ((arg.startsWith('-') || arg.startsWith('+')) && arg.length > 1) out.push(arg);
  }
  return out;
}

/** A pkill pattern is broad when it is a regular expression with wildcards or anchors, or shorter than 4 characters. */
function pkillIsBroad(args: readonly string[]): boolean {
  const withValue = new Set([
    '-u',
    '-U',
    '-g',
    '-G',
    '-s',
    '-P',
    '-t',
    '--signal',
    '--euid',
    '--uid',
    '--pgroup',
    '--group',
    '--session',
    '--parent',
    '--terminal',
    '-F',
    '--pidfile',
    '--ns',
    '--nslist',
  ]);
  const patterns: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      patterns.push(...args.slice(i + 1));
      break;
    }
    if (withValue.has(arg)) i++;
    else if (!arg.startsWith('-')) patterns.push(arg);
  }
  if (patterns.length === 0) return false;
  return patterns.some((p) => p.length < 4 || /(?:^|[^\\])[.*+?[\]^$|()]/.test(p));
}

// ---------- the table ----------

export const DESTRUCTIVE_COMMANDS: readonly DestructiveRule[] = [
  {
    id: 'rm-recursive',
    description: 'recursive deletion: rm -r removes whole directory trees',
    commands: ['rm'],
    matchCommand: (c) => c.name === 'rm' && (hasOption(c.args, 'r', '--recursive') || hasOption(c.args, 'R')),
  },
  {
    id: 'rm-force',
    description: 'forced deletion: rm -f deletes without confirmation and ignores missing files',
    commands: ['rm'],
    matchCommand: (c) => c.name === 'rm' && hasOption(c.args, 'f', '--force'),
  },
  {
    id: 'rm-no-preserve-root',
    description: 'rm --no-preserve-root disables the safeguard against deleting /',
    commands: ['rm'],
    matchCommand: (c) => c.name === 'rm' && hasOption(c.args, undefined, '--no-preserve-root'),
  },
  {
    id: 'find-delete',
    description: 'find -delete removes every file the search matches',
    commands: ['find'],
    matchCommand: (c) => c.name === 'find' && c.args.includes('-delete'),
  },
  {
    id: 'git-force-push',
    description: 'forced push: rewrites history on the remote and can discard other people’s commits',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub !== 'push') return false;
      return (
        hasOption(git.args, 'f', '--force', '--force-with-lease', '--force-if-includes', '--mirror') ||
        positionals(git.args).some((refspec) => refspec.startsWith('+'))
      );
    },
  },
  {
    id: 'git-push-delete',
    description: 'git push --delete removes branches or tags on the remote',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub !== 'push') return false;
      return (
        hasOption(git.args, 'd', '--delete', '--prune') ||
        positionals(git.args).some((refspec) => refspec.startsWith(':'))
      );
    },
  },
  {
    id: 'git-reset-hard',
    description: 'git reset --hard throws away uncommitted changes',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'reset' && hasOption(git.args, undefined, '--hard', '--merge', '--keep');
    },
  },
  {
    id: 'git-clean-force',
    description: 'git clean -f deletes untracked files for good',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'clean' && hasOption(git.args, 'f', '--force');
    },
  },
  {
    id: 'git-checkout-discard',
    description: 'git checkout with paths (or -f) overwrites uncommitted changes in those files',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub !== 'checkout') return false;
      if (
        git.args.includes('--') ||
        hasOption(git.args, 'f', '--force', '--ours', '--theirs', '--pathspec-from-file')
      )
        return true;
      if (hasOption(git.args, 'B')) return true;
      const operands = positionals(git.args);
      // One operand is usually a branch; `.`, a path or a second operand names files to overwrite.
      return operands.length > 1 || operands.some((o) => o === '.' || /[/*?[:]/.test(o));
    },
  },
  {
    id: 'git-restore',
    description: 'git restore overwrites uncommitted changes in the working tree',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub !== 'restore') return false;
      const stagedOnly = hasOption(git.args, 'S', '--staged') && !hasOption(git.args, 'W', '--worktree');
      return !stagedOnly;
    },
  },
  {
    id: 'git-switch-discard',
    description: 'git switch --discard-changes (or -f, -C) throws away local changes or resets a branch',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return (
        git?.sub === 'switch' &&
        (hasOption(git.args, 'f', '--discard-changes', '--force', '--force-create') ||
          hasOption(git.args, 'C'))
      );
    },
  },
  {
    id: 'git-stash-drop',
    description: 'git stash clear/drop deletes stashed changes for good',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'stash' && (git.args[0] === 'clear' || git.args[0] === 'drop');
    },
  },
  {
    id: 'git-branch-force-delete',
    description: 'git branch -D (or -f, -M) deletes or moves a branch even when its commits are not merged',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub !== 'branch') return false;
      return (
        hasOption(git.args, 'D') ||
        hasOption(git.args, 'M') ||
        hasOption(git.args, 'C') ||
        hasOption(git.args, 'f', '--force')
      );
    },
  },
  {
    id: 'git-config-injection',
    description:
      'git configuration given on the command line (-c, --config-env, --exec-path) can run any program (core.fsmonitor, core.pager, alias.x=!cmd)',
    commands: ['git'],
    matchCommand: (c) =>
      c.name === 'git' &&
      (gitSubcommand(c)?.globals ?? c.args).some(
        (a) =>
          a === '-c' ||
          a.startsWith('-c') ||
          a.startsWith('--config-env') ||
          a.startsWith('--exec-path') ||
          a.startsWith('--git-dir') ||
          a.startsWith('--work-tree'),
      ),
  },
  {
    id: 'git-config-change',
    description:
      'git config changes a setting that can run programs or turn off a safety check (only user.name, user.email and a few other harmless keys run without asking)',
    commands: ['git'],
    // It writes .git/config or ~/.gitconfig, which are protected like the files themselves.
    scope: 'every-mode',
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'config' && gitConfigChangesSetting(git.args);
    },
  },
  {
    id: 'git-runs-command',
    description:
      'this git command runs a program given on its command line (--upload-pack, rebase --exec, submodule foreach, bisect run, filter-branch)',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git !== undefined && gitRunsCommand(git.sub, git.args);
    },
  },
  {
    id: 'rsync-delete',
    description: 'rsync --delete removes files at the destination that the source does not have',
    commands: ['rsync'],
    matchCommand: (c) =>
      c.name === 'rsync' &&
      optionsOf(c.args).some((o) => o.startsWith('--del') || o === '--remove-source-files'),
  },
  {
    id: 'dd-write',
    description: 'dd of= writes raw bytes over a file or a disk',
    commands: ['dd'],
    matchCommand: (c) => c.name === 'dd' && c.args.some((a) => a.startsWith('of=')),
  },
  {
    id: 'make-filesystem',
    description: 'creating a filesystem erases what the device held',
    commands: ['mkfs', 'mkfs.*', 'mke2fs', 'mkswap', 'newfs'],
    matchCommand: (c) => c.name.startsWith('mkfs') || ['mke2fs', 'mkswap', 'newfs'].includes(c.name),
  },
  {
    id: 'partition-tool',
    description: 'partitioning and signature tools rewrite disk layouts',
    commands: ['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'blkdiscard'],
    matchCommand: (c) =>
      ['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'blkdiscard'].includes(c.name),
  },
  {
    id: 'shred',
    description: 'shred overwrites files so they cannot be recovered',
    commands: ['shred'],
    matchCommand: (c) => c.name === 'shred',
  },
  {
    id: 'block-device-write',
    description: 'writing to a block device destroys the data on the disk',
    commands: ['*'],
    matchCommand: (c) => writesTo(c, BLOCK_DEVICE, '/'),
  },
  {
    id: 'system-file-write',
    description: 'overwriting or truncating a system file can break the machine',
    commands: ['*'],
    // Relative paths resolve against a folder that is not a system path, so only absolute ones match.
    matchCommand: (c) => writesTo(c, SYSTEM_PATH, '/nonexistent-cwd'),
  },
  {
    id: 'recursive-permission-change',
    description: 'recursive permission or owner change on a whole tree',
    commands: ['chmod', 'chown', 'chgrp'],
    matchCommand: (c) =>
      // chmod's lowercase -r is a mode ("remove read"), not recursion.
      ['chmod', 'chown', 'chgrp'].includes(c.name) && hasOption(c.args, 'R', '--recursive'),
  },
  {
    id: 'download-piped-to-interpreter',
    description: 'piping a download into a shell or interpreter runs unreviewed code',
    commands: [...DOWNLOADERS],
    matchPipeline: (stages) => {
      const firstDownload = stages.findIndex((stage) => stage.some((c) => DOWNLOADERS.has(c.name)));
      if (firstDownload === -1) return false;
      return stages.slice(firstDownload + 1).some((stage) => stage.some(interpreterReadsStdin));
    },
  },
  {
    id: 'script-piped-to-interpreter',
    description:
      'text piped into a shell or interpreter is run as a program, and what it says cannot be checked',
    commands: [...INTERPRETERS],
    matchPipeline: (stages) =>
      stages
        .slice(1)
        .some((stage) =>
          stage.some((c) => interpreterReadsStdin(c) && !c.redirects.some((r) => STDIN_REDIRECTS.has(r.op))),
        ),
  },
  {
    id: 'download-executed',
    description: 'running a downloaded script through a shell, eval or source executes unreviewed code',
    commands: [...INTERPRETERS, 'eval', 'source', '.'],
    matchCommand: (c) => runsEverywhere(c) && c.substituted.some((inner) => DOWNLOADERS.has(inner.name)),
  },
  {
    id: 'option-runs-command',
    description:
      'an option of this tool runs a program given on the command line (rg --pre, fd --exec, tar --to-command, rsync -e, sort --compress-program, man -P, …)',
    commands: Object.keys(COMMAND_RUNNING_OPTIONS),
    matchCommand: (c) => {
      const options = COMMAND_RUNNING_OPTIONS[c.name];
      if (!options) return false;
      return optionsOf(c.args).some((arg) =>
        options.some((o) =>
          o.startsWith('--')
            ? arg === o || arg.startsWith(`${o}=`)
            : arg === o || (arg.startsWith(o) && !arg.startsWith('--')),
        ),
      );
    },
  },
  {
    id: 'privilege-escalation',
    description: 'privilege escalation: the command would run as another user (usually root)',
    commands: ['sudo', 'su', 'doas', 'pkexec', 'run0', 'sudoedit'],
    matchCommand: (c) => ['sudo', 'su', 'doas', 'pkexec', 'run0', 'sudoedit'].includes(c.name),
  },
  {
    id: 'kill-all-processes',
    description: 'kill -1 signals every process the user owns',
    commands: ['kill'],
    matchCommand: (c) => c.name === 'kill' && killTargetsEverything(c.args),
  },
  {
    id: 'kill-by-user-or-name',
    description:
      'pkill -u and killall signal every matching process, furfly itself and other programs included',
    commands: ['pkill', 'killall', 'killall5'],
    matchCommand: (c) =>
      c.name === 'killall' ||
      c.name === 'killall5' ||
      (c.name === 'pkill' &&
        (hasOption(c.args, 'u', '--euid', '--uid', '--pgroup', '--session', '--parent', '--group') ||
          hasOption(c.args, 'U') ||
          hasOption(c.args, 'G') ||
          hasOption(c.args, 'g') ||
          hasOption(c.args, 's') ||
          hasOption(c.args, 'P'))),
  },
  {
    id: 'editor-runs-command',
    description:
      'an editor given commands on its command line (-c, +cmd, --cmd, -S) or in ex/silent mode (-e, -s) runs them, and ex commands can run any program (:!rm -rf …)',
    commands: [...VI_FAMILY],
    matchCommand: (c) => VI_FAMILY.has(c.name) && editorRunsCommands(c),
  },
  {
    id: 'scheduled-command',
    description:
      'at, batch and crontab schedule commands that run later, outside this session and its checks',
    commands: ['at', 'batch', 'crontab'],
    matchCommand: (c) =>
      c.name === 'batch' ||
      (c.name === 'at' && !c.args.every((a) => a === '-l' || a === '-c' || /^\d+$/.test(a))) ||
      (c.name === 'crontab' && !c.args.includes('-l') && !hasOption(c.args, 'r')),
  },
  {
    id: 'crontab-remove',
    description: "crontab -r deletes the user's whole crontab without a copy",
    commands: ['crontab'],
    matchCommand: (c) => c.name === 'crontab' && hasOption(c.args, 'r'),
  },
  {
    id: 'pkill-broad-pattern',
    description:
      'pkill with a broad pattern (a regular expression such as ., or a short name; with -f it is matched against whole command lines) signals processes it was not meant for, furfly itself included',
    commands: ['pkill'],
    matchCommand: (c) => c.name === 'pkill' && pkillIsBroad(c.args),
  },
  {
    id: 'git-ref-delete',
    description:
      'git update-ref -d (or --stdin) and git reflog expire/delete remove refs and the reflog, the only way back to lost commits',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub === 'update-ref') return hasOption(git.args, 'd', '--stdin');
      if (git?.sub === 'reflog') return git.args[0] === 'expire' || git.args[0] === 'delete';
      return false;
    },
  },
  {
    id: 'git-prune',
    description: 'git gc --prune and git prune delete unreachable commits for good',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      if (git?.sub === 'prune') return true;
      return (
        git?.sub === 'gc' &&
        optionsOf(git.args).some((o) => o === '--prune' || o.startsWith('--prune=') || o === '--aggressive')
      );
    },
  },
  {
    id: 'git-rm-recursive',
    description: 'git rm -r deletes whole directory trees from the working tree and the index',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'rm' && hasOption(git.args, 'r') && !hasOption(git.args, undefined, '--cached');
    },
  },
  {
    id: 'git-worktree-force-remove',
    description: 'git worktree remove --force deletes a worktree with its uncommitted changes',
    commands: ['git'],
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return (
        git?.sub === 'worktree' && git.args[0] === 'remove' && hasOption(git.args.slice(1), 'f', '--force')
      );
    },
  },
  {
    id: 'process-secrets',
    description:
      "reads another process's environment or memory (/proc/<pid>/environ, /proc/<pid>/mem, ps e), where furfly's own API keys are",
    commands: ['*'],
    scope: 'every-mode',
    matchCommand: (c) =>
      c.words.some((w) => touchesProcessSecrets(w.text, w.glob)) ||
      c.redirects.some((r) => touchesProcessSecrets(r.target.text, r.target.glob)) ||
      (c.name === 'ps' && c.args.some((a) => /^[^-]*e/.test(a) && !a.startsWith('-'))),
  },
  {
    id: 'ptrace',
    description:
      'a debugger or tracer can attach to other processes and read their memory (furfly’s API keys included)',
    commands: [...PTRACE_TOOLS],
    scope: 'every-mode',
    matchCommand: (c) => PTRACE_TOOLS.has(c.name),
  },
];

function killTargetsEverything(args: readonly string[]): boolean {
  let sawSignal = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return args.slice(i + 1).includes('-1');
    if (arg === '-s' || arg === '-n') {
      i++;
      sawSignal = true;
    } else if (arg === '-1' && sawSignal) {
      return true;
    } else if (arg.startsWith('-') && !sawSignal) {
      sawSignal = true;
    } else if (!arg.startsWith('-') && arg !== '') {
      sawSignal = true;
    }
  }
  return false;
}

/** Every command name some row looks at (without `*`). */
export function tableCommandNames(): Set<string> {
  return new Set(
    DESTRUCTIVE_COMMANDS.flatMap((r) => r.commands).filter((n) => n !== '*' && !n.includes('*')),
  );
}
