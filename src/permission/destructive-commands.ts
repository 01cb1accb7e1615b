/**
 * The destructive-command table used by the `auto` mode: commands that can lose data, damage the
 * system or hand control to someone else are asked about, everything else runs.
 *
 * The check works on parsed commands, not on the raw text, so quoting is respected (`echo "rm -rf /"`
 * is harmless) and every part of a compound line is inspected: `;` `&&` `||` pipes, subshells, `$( )`,
 * backticks, process substitution, `${x:-$(...)}`, `$(( $(...) ))`, here-document bodies, `bash -c
 * '...'`, `eval`, `trap`, `env -S`, scripts given to a shell on stdin (`bash <<< '...'`, `bash <<EOF`),
 * and wrappers such as `sudo`, `env`, `xargs`, `timeout`, `setsid`, `flock`, `find -exec`. Long options
 * match by unique prefix, as GNU tools accept them (`rm --recur`).
 *
 * Principle: when the analysis cannot be sure, the answer is a finding (so the caller asks), never a
 * silent pass. So a line that cannot be parsed, a command name built by expansion (`$CMD`, `{rm,-rf,x}`,
 * `$'\x72m'`) and text piped into a shell or interpreter (`... | bash`) are all reported.
 *
 * Not covered (documented limits): aliases and functions are not resolved, programs given to
 * non-shell interpreters (`python3 -c`, `node -e`, `python3 <<EOF`) and scripts run by file
 * (`bash cleanup.sh`) are not read, and commands run on another host (`ssh host '...'`) are not inspected.
 */
import { parseShell, type Redirect, type Script, type Stage, type Word } from './shell-parse.js';

/** One command after wrappers and assignments are peeled off: `sudo FOO=1 /bin/rm -rf x` → rm, [-rf, x]. */
export interface CommandView {
  /** The program's base name (`/usr/bin/rm` → `rm`). */
  name: string;
  args: string[];
  redirects: readonly Redirect[];
  /** Commands that run inside this command's `$( )`, backticks and `<( )`. */
  substituted: readonly CommandView[];
}

export interface DestructiveRule {
  id: string;
  /** Why it is dangerous, for a person: "recursive deletion: rm -r removes whole directory trees". */
  description: string;
  matchCommand?(command: CommandView): boolean;
  /** For rules about how commands are connected; each stage lists the commands it runs. */
  matchPipeline?(stages: readonly CommandView[][]): boolean;
}

export interface DestructiveFinding {
  id: string;
  description: string;
  /** The offending command, re-assembled for the reason text. */
  command: string;
}

// ---------- helpers used by the rules ----------

/** Options before `--`; long options verbatim, short clusters as given (`-rf`). */
function optionsOf(args: readonly string[]): string[] {
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
function hasOption(args: readonly string[], letter: string | undefined, ...long: string[]): boolean {
  return optionsOf(args).some((option) => {
    if (option.startsWith('--')) {
      const name = option.split('=', 1)[0]!;
      return name.length > 2 && long.some((l) => l.startsWith(name));
    }
    return letter !== undefined && /^-[A-Za-z]+$/.test(option) && option.includes(letter);
  });
}

function positionals(args: readonly string[]): string[] {
  const out: string[] = [];
  let afterDashes = false;
  for (const arg of args) {
    if (!afterDashes && arg === '--') afterDashes = true;
    else if (afterDashes || !arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

const GIT_OPTIONS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
]);

/** `git -C dir push --force` → { sub: 'push', args: ['--force'] }. */
function gitSubcommand(command: CommandView): { sub: string; args: string[] } | undefined {
  if (command.name !== 'git') return undefined;
  for (let i = 0; i < command.args.length; i++) {
    const arg = command.args[i]!;
    if (GIT_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return { sub: arg, args: command.args.slice(i + 1) };
  }
  return undefined;
}

const BLOCK_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|loop|mapper\/|sr)/;
const SYSTEM_PATH = /^\/(?:etc|boot|bin|sbin|lib|lib32|lib64|usr|sys|proc\/sys)(?:\/|$)/;
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function writesTo(command: CommandView, target: RegExp): boolean {
  return (
    command.redirects.some((r) => WRITE_REDIRECTS.has(r.op) && target.test(r.target.text)) ||
    copiedOnto(command).some((path) => target.test(path))
  );
}

/**
 * The paths `cp`, `mv`, `install` or `tee` would (over)write: the `-t`/`--target-directory` folder or
 * else the last operand (every operand for tee); for `mv` also the sources, which it removes.
 */
function copiedOnto(command: CommandView): string[] {
  if (command.name === 'tee') return positionals(command.args);
  if (!['cp', 'mv', 'install'].includes(command.name)) return [];
  const out: string[] = [];
  command.args.forEach((arg, i) => {
    if (arg === '-t' || arg === '--target-directory') out.push(command.args[i + 1] ?? '');
    else if (arg.startsWith('--target-directory=')) out.push(arg.slice('--target-directory='.length));
    else if (/^-[^-]*t./.test(arg)) out.push(arg.slice(arg.indexOf('t') + 1));
  });
  const operands = positionals(command.args);
  if (command.name === 'mv') out.push(...operands);
  else if (out.length === 0 && operands.length > 1) out.push(operands[operands.length - 1]!);
  return out;
}

const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash']);
/** Redirections that give a command its stdin from somewhere other than the pipe. */
const STDIN_REDIRECTS = new Set(['<', '<<', '<<-', '<<<', '<>', '<&']);
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
]);

function isInterpreterName(name: string): boolean {
  return INTERPRETERS.has(name) || /^python\d+(\.\d+)?$/.test(name);
}

/** True when an interpreter would execute what arrives on stdin (`sh`, `bash -s`, `python -`). */
function interpreterReadsStdin(command: CommandView): boolean {
  if (!isInterpreterName(command.name)) return false;
  const options = optionsOf(command.args);
  if (SHELLS.has(command.name) && options.some((o) => /^-[a-z]*s/.test(o))) return true;
  // `-c`/`-e`/`-m`/`-r` take the program from the command line, so stdin is just data.
  if (options.some((o) => /^-[A-Za-z]*[cemr]$/.test(o) || o === '--eval' || o === '--command')) return false;
  const [first] = positionals(command.args);
  return first === undefined || first === '-' || first === '/dev/stdin';
}

const runsEverywhere = (command: CommandView): boolean =>
  isInterpreterName(command.name) || ['eval', 'source', '.'].includes(command.name);

// ---------- the table ----------

export const DESTRUCTIVE_COMMANDS: readonly DestructiveRule[] = [
  {
    id: 'rm-recursive',
    description: 'recursive deletion: rm -r removes whole directory trees',
    matchCommand: (c) => c.name === 'rm' && (hasOption(c.args, 'r', '--recursive') || hasOption(c.args, 'R')),
  },
  {
    id: 'rm-force',
    description: 'forced deletion: rm -f deletes without confirmation and ignores missing files',
    matchCommand: (c) => c.name === 'rm' && hasOption(c.args, 'f', '--force'),
  },
  {
    id: 'rm-no-preserve-root',
    description: 'rm --no-preserve-root disables the safeguard against deleting /',
    matchCommand: (c) => c.name === 'rm' && hasOption(c.args, undefined, '--no-preserve-root'),
  },
  {
    id: 'find-delete',
    description: 'find -delete removes every file the search matches',
    matchCommand: (c) => c.name === 'find' && c.args.includes('-delete'),
  },
  {
    id: 'git-force-push',
    description: 'forced push: rewrites history on the remote and can discard other people’s commits',
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
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'reset' && hasOption(git.args, undefined, '--hard');
    },
  },
  {
    id: 'git-clean-force',
    description: 'git clean -f deletes untracked files for good',
    matchCommand: (c) => {
      const git = gitSubcommand(c);
      return git?.sub === 'clean' && hasOption(git.args, 'f', '--force');
    },
  },
  {
    id: 'dd-write',
    description: 'dd of= writes raw bytes over a file or a disk',
    matchCommand: (c) => c.name === 'dd' && c.args.some((a) => a.startsWith('of=')),
  },
  {
    id: 'make-filesystem',
    description: 'creating a filesystem erases what the device held',
    matchCommand: (c) => c.name.startsWith('mkfs') || ['mke2fs', 'mkswap', 'newfs'].includes(c.name),
  },
  {
    id: 'partition-tool',
    description: 'partitioning and signature tools rewrite disk layouts',
    matchCommand: (c) =>
      ['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'blkdiscard'].includes(c.name),
  },
  {
    id: 'shred',
    description: 'shred overwrites files so they cannot be recovered',
    matchCommand: (c) => c.name === 'shred',
  },
  {
    id: 'block-device-write',
    description: 'writing to a block device destroys the data on the disk',
    matchCommand: (c) => writesTo(c, BLOCK_DEVICE),
  },
  {
    id: 'system-file-write',
    description: 'overwriting or truncating a system file can break the machine',
    matchCommand: (c) =>
      writesTo(c, SYSTEM_PATH) ||
      (c.name === 'truncate' && positionals(c.args).some((a) => SYSTEM_PATH.test(a))),
  },
  {
    id: 'recursive-permission-change',
    description: 'recursive permission or owner change on a whole tree',
    matchCommand: (c) =>
      // chmod's lowercase -r is a mode ("remove read"), not recursion.
      ['chmod', 'chown', 'chgrp'].includes(c.name) && hasOption(c.args, 'R', '--recursive'),
  },
  {
    id: 'download-piped-to-interpreter',
    description: 'piping a download into a shell or interpreter runs unreviewed code',
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
    matchCommand: (c) => runsEverywhere(c) && c.substituted.some((inner) => DOWNLOADERS.has(inner.name)),
  },
  {
    id: 'privilege-escalation',
    description: 'privilege escalation: the command would run as another user (usually root)',
    matchCommand: (c) => ['sudo', 'su', 'doas', 'pkexec', 'run0'].includes(c.name),
  },
  {
    id: 'kill-all-processes',
    description: 'kill -1 signals every process the user owns',
    matchCommand: (c) => c.name === 'kill' && killTargetsEverything(c.args),
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

/** `:(){ :|:& };:` and its renamed variants, spotted in the raw text because it is a function definition. */
const FORK_BOMB = /([A-Za-z_:][\w:]*)\(\)\{\1\|\1&\};\1/;

const FORK_BOMB_RULE = {
  id: 'fork-bomb',
  description: 'fork bomb: a function that spawns itself until the machine stops responding',
};

const UNANALYSABLE_NAME_RULE = {
  id: 'unanalysable-command-name',
  description:
    "the command name is built by expansion ($VAR, $(...), $'...' or {a,b}), so what runs cannot be known in advance",
};

/** Unquoted brace expansion (`{a,b}`, `{1..3}`) in a word as written. */
const BRACE_EXPANSION = /\{[^{}'"]*(?:,|\.\.)[^{}'"]*\}/;

function nameIsUnanalysable(raw: string, text: string): boolean {
  return /[$`]/.test(raw) || /[$`]/.test(text) || BRACE_EXPANSION.test(raw);
}

const UNPARSEABLE_RULE = {
  id: 'unparseable',
  description: 'the command could not be parsed reliably (unbalanced quotes, parentheses or here-document)',
};

// ---------- walking a parsed line ----------

const RESERVED_PREFIXES = new Set([
  '{',
  '}',
  '!',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
  'coproc',
]);
const MAX_NESTING = 8;

/** Every destructive pattern in `commandLine`, in the order found; empty when it looks safe. */
export function findDestructive(commandLine: string): DestructiveFinding[] {
  const findings: DestructiveFinding[] = [];
  if (FORK_BOMB.test(commandLine.replace(/\s+/g, ''))) {
    findings.push({ ...FORK_BOMB_RULE, command: commandLine.trim() });
  }
  inspectScript(parseShell(commandLine), findings, 0);
  return dedupe(findings);
}

function inspectScript(script: Script, findings: DestructiveFinding[], depth: number): void {
  if (script.problems.length > 0) findings.push({ ...UNPARSEABLE_RULE, command: script.problems[0]! });
  for (const pipeline of script.pipelines) {
    const stages = pipeline.stages.map((stage) => commandsOfStage(stage, findings, depth));
    for (const rule of DESTRUCTIVE_COMMANDS) {
      if (rule.matchPipeline?.(stages)) {
        findings.push({
          id: rule.id,
          description: rule.description,
          command: stages.map(renderStage).join(' | '),
        });
      }
    }
  }
}

/** All commands a stage runs, head first; checks each one against the per-command rules on the way. */
function commandsOfStage(stage: Stage, findings: DestructiveFinding[], depth: number): CommandView[] {
  if (stage.kind === 'subshell') {
    inspectScript(stage.body, findings, depth);
    return flattenScript(stage.body);
  }
  const substitutedScripts = [
    ...stage.words.flatMap((w) => w.substitutions),
    ...stage.redirects.flatMap((r) => r.target.substitutions),
  ];
  for (const inner of substitutedScripts) inspectScript(inner, findings, depth);
  const substituted = substitutedScripts.flatMap(flattenScript);
  const words = stripPrefixWords(stage.words);
  if (words[0] && nameIsUnanalysable(words[0].raw, words[0].text)) {
    findings.push({ ...UNANALYSABLE_NAME_RULE, command: words.map((w) => w.raw).join(' ') });
  }
  const argv = words.flatMap(braceExpanded);
  const views =
    argv.length > 0 || stage.redirects.length > 0
      ? expand(argv, stage.redirects, substituted, findings, depth)
      : [];
  for (const view of views) checkCommand(view, findings);
  return views;
}

function checkCommand(view: CommandView, findings: DestructiveFinding[]): void {
  for (const rule of DESTRUCTIVE_COMMANDS) {
    if (rule.matchCommand?.(view))
      findings.push({ id: rule.id, description: rule.description, command: render(view) });
  }
}

function stripPrefixWords(words: readonly Word[]): Word[] {
  let i = 0;
  while (i < words.length && (words[i]!.assignment || RESERVED_PREFIXES.has(words[i]!.text))) {
    // `time -p cmd`: the option belongs to the keyword.
    if (words[i]!.text === 'time' && words[i + 1]?.text === '-p') i++;
    i++;
  }
  return words.slice(i);
}

function stripPrefixes(words: readonly Word[]): string[] {
  return stripPrefixWords(words).flatMap(braceExpanded);
}

const MAX_BRACE_WORDS = 64;

/**
 * The words bash makes of an unquoted brace expression (`{rm,-rf,y}` → rm -rf y), so the rules see
 * what really runs. Words with quotes or expansions are left as written (they are flagged elsewhere
 * when they matter, e.g. as a command name).
 */
function braceExpanded(word: Word): string[] {
  if (!BRACE_EXPANSION.test(word.raw) || /['"\\$`]/.test(word.raw)) return [word.text];
  const out = expandBraces(word.raw);
  return out.length > 0 && out.length <= MAX_BRACE_WORDS ? out : [word.text];
}

function expandBraces(text: string): string[] {
  for (let open = text.indexOf('{'); open !== -1; open = text.indexOf('{', open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < text.length; i++) {
      const ch = text[i];
      if (ch === '{') depth++;
      else if (ch === ',' && depth === 1) commas.push(i);
      else if (ch === '}' && --depth === 0) {
        if (commas.length === 0) break;
        const prefix = text.slice(0, open);
        const suffix = text.slice(i + 1);
        const bounds = [open, ...commas, i];
        const out: string[] = [];
        for (let k = 0; k + 1 < bounds.length && out.length <= MAX_BRACE_WORDS; k++) {
          out.push(...expandBraces(prefix + text.slice(bounds[k]! + 1, bounds[k + 1]) + suffix));
        }
        return out;
      }
    }
  }
  return text === '' ? [] : [text];
}

function baseName(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash === -1 ? program : program.slice(slash + 1);
}

/**
 * The command itself plus whatever it runs on our behalf: `sudo rm -rf x` is both sudo and rm;
 * `bash -c 'a; b'` is bash plus a and b (inspected as a script of its own).
 */
function expand(
  argv: readonly string[],
  redirects: readonly Redirect[],
  substituted: readonly CommandView[],
  findings: DestructiveFinding[],
  depth: number,
): CommandView[] {
  const head: CommandView = { name: baseName(argv[0] ?? ''), args: argv.slice(1), redirects, substituted };
  const views = [head];
  if (depth >= MAX_NESTING) return views;
  if (depth > 0 && argv[0] !== undefined && nameIsUnanalysable(argv[0], argv[0])) {
    findings.push({ ...UNANALYSABLE_NAME_RULE, command: render(head) });
  }
  for (const inner of [...wrappedCommands(head), ...stdinScripts(head)]) {
    if (inner.kind === 'argv') {
      // The wrapped command inherits the wrapper's stdin (`sudo bash <<< '...'`).
      if (inner.argv.length > 0)
        views.push(...expand(inner.argv, redirects, substituted, findings, depth + 1));
    } else {
      const script = parseShell(inner.source);
      inspectScript(script, findings, depth + 1);
      views.push(...flattenScript(script));
    }
  }
  return views;
}

type Wrapped = { kind: 'argv'; argv: string[] } | { kind: 'script'; source: string };

/** A shell reading its program from a here-string or here-document runs that text as a script. */
function stdinScripts(command: CommandView): Wrapped[] {
  if (!SHELLS.has(command.name) || !interpreterReadsStdin(command)) return [];
  const out: Wrapped[] = [];
  for (const r of command.redirects) {
    if (r.op === '<<<') out.push({ kind: 'script', source: r.target.text });
    else if (r.heredocBody !== undefined) out.push({ kind: 'script', source: r.heredocBody });
  }
  return out;
}

const WRAPPER_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  sudo: new Set(['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '-D', '-R', '-T']),
  doas: new Set(['-u', '-C']),
  pkexec: new Set(['--user']),
  run0: new Set(['-u', '--user', '-D', '--chdir']),
  env: new Set(['-u', '--unset', '-C', '--chdir']),
  setsid: new Set(),
  busybox: new Set(),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n', '-p', '-t']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e']),
  xargs: new Set([
    '-I',
    '-n',
    '-P',
    '-L',
    '-s',
    '-d',
    '-E',
    '-a',
    '--max-args',
    '--max-procs',
    '--delimiter',
  ]),
  exec: new Set(['-a']),
  nohup: new Set(),
  time: new Set(),
  command: new Set(),
  builtin: new Set(),
  chronic: new Set(),
  unbuffer: new Set(),
};

/** The argument after a `-c`-style option (`-c`, `-xc`, `--command`, `--command=...`), `--` skipped. */
function commandOption(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('--command=')) return arg.slice('--command='.length);
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(arg) || arg === '--command') {
      const next = args[i + 1] === '--' ? args[i + 2] : args[i + 1];
      return next;
    }
  }
  return undefined;
}

function wrappedCommands(command: CommandView): Wrapped[] {
  const { name, args } = command;
  if (name === 'eval') {
    const rest = args[0] === '--' ? args.slice(1) : args;
    return [{ kind: 'script', source: rest.join(' ') }];
  }
  if (name === 'trap') {
    // `trap [-lp] [--] ACTION SIGNAL...`: the action is a script run later.
    const [action] = skipOptions(args, new Set());
    return action !== undefined && action !== '-' ? [{ kind: 'script', source: action }] : [];
  }
  if (SHELLS.has(name) || name === 'su' || name === 'script') {
    const source = commandOption(args);
    return source !== undefined ? [{ kind: 'script', source }] : [];
  }
  if (name === 'runuser') {
    const source = commandOption(args);
    if (source !== undefined) return [{ kind: 'script', source }];
    // `runuser -u USER [--] COMMAND...`; without -u the rest goes to a login shell.
    if (!args.some((a) => a === '-u' || a.startsWith('--user'))) return [];
    return [
      { kind: 'argv', argv: skipOptions(args, new Set(['-u', '--user', '-g', '--group', '-G', '-s', '-w'])) },
    ];
  }
  if (name === 'flock') {
    const source = commandOption(args);
    if (source !== undefined) return [{ kind: 'script', source }];
    const rest = skipOptions(args, new Set(['-w', '--timeout', '-E', '--conflict-exit-code']));
    return [{ kind: 'argv', argv: skipOptions(rest.slice(1), new Set()) }];
  }
  if (name === 'chroot') {
    const rest = skipOptions(args, new Set(['--userspec', '--groups']));
    return [{ kind: 'argv', argv: rest.slice(1) }];
  }
  if (name === 'parallel') return parallelCommands(args);
  if (name === 'env') {
    const split = envSplitString(args);
    if (split !== undefined) return [{ kind: 'script', source: split }];
  }
  if (name === 'find') return findExecCommands(args);
  if (name === 'watch') {
    const rest = skipOptions(args, new Set(['-n', '--interval', '-d']));
    return rest.length > 0 ? [{ kind: 'script', source: rest.join(' ') }] : [];
  }
  const valueOptions = WRAPPER_VALUE_OPTIONS[name];
  if (!valueOptions) return [];
  if (name === 'command' && args.some((a) => a === '-v' || a === '-V')) return [];
  let rest = skipOptions(args, valueOptions);
  if (name === 'env') rest = dropAssignments(rest);
  if (name === 'timeout') rest = rest.slice(1); // the duration
  return [{ kind: 'argv', argv: rest }];
}

/** `env -S 'a b'` / `--split-string=...` splits its value into a command line, plus the arguments after it. */
function envSplitString(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--' || !arg.startsWith('-')) return undefined;
    let value: string | undefined;
    let next = i + 1;
    if (arg === '-S' || arg === '--split-string') {
      value = args[i + 1];
      next = i + 2;
    } else if (arg.startsWith('--split-string=')) value = arg.slice('--split-string='.length);
    else if (/^-[iv0]*S./.test(arg)) value = arg.slice(arg.indexOf('S') + 1);
    if (value !== undefined) return [value, ...args.slice(next)].join(' ');
  }
  return undefined;
}

/** `parallel CMD ::: args` runs CMD through a shell; `parallel ::: 'cmd1' 'cmd2'` runs each argument. */
function parallelCommands(args: readonly string[]): Wrapped[] {
  const rest = skipOptions(
    args,
    new Set(['-j', '--jobs', '-S', '-N', '-n', '-P', '-I', '-d', '-a', '--colsep']),
  );
  const separator = rest.findIndex((a) => a === ':::' || a === '::::' || a === ':::+');
  const commandWords = separator === -1 ? rest : rest.slice(0, separator);
  if (commandWords.length > 0) return [{ kind: 'script', source: commandWords.join(' ') }];
  return rest
    .slice(separator + 1)
    .filter((a) => !a.startsWith(':::'))
    .map((source) => ({ kind: 'script', source }));
}

function skipOptions(args: readonly string[], valueOptions: ReadonlySet<string>): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-') && args[i] !== '-') {
    if (args[i] === '--') return args.slice(i + 1);
    if (valueOptions.has(args[i]!)) i++;
    i++;
  }
  return args.slice(i);
}

function dropAssignments(args: string[]): string[] {
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!)) i++;
  return args.slice(i);
}

function findExecCommands(args: readonly string[]): Wrapped[] {
  const out: Wrapped[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
    const argv: string[] = [];
    for (i++; i < args.length && args[i] !== ';' && args[i] !== '+'; i++) argv.push(args[i]!);
    out.push({ kind: 'argv', argv });
  }
  return out;
}

/** Commands of a script without inspection, for "what runs inside this substitution/stage". */
function flattenScript(script: Script): CommandView[] {
  const out: CommandView[] = [];
  for (const pipeline of script.pipelines) {
    for (const stage of pipeline.stages) {
      if (stage.kind === 'subshell') {
        out.push(...flattenScript(stage.body));
        continue;
      }
      const substituted = stage.words.flatMap((w) => w.substitutions).flatMap(flattenScript);
      out.push(...substituted);
      const argv = stripPrefixes(stage.words);
      if (argv.length > 0) {
        out.push({ name: baseName(argv[0]!), args: argv.slice(1), redirects: stage.redirects, substituted });
      }
    }
  }
  return out;
}

function render(view: CommandView): string {
  const redirects = view.redirects.map((r) => `${r.op} ${r.target.text}`);
  return [view.name, ...view.args, ...redirects].filter((part) => part !== '').join(' ');
}

function renderStage(stage: readonly CommandView[]): string {
  return stage[0] ? render(stage[0]) : '';
}

function dedupe(findings: DestructiveFinding[]): DestructiveFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.id}\u0000${f.command}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
