/**
 * Wrappers: commands that run another command given in their arguments (`timeout 5 rm -rf x`).
 *
 * Each entry says which options take a value, so the wrapped command is found exactly where the
 * wrapper itself would find it. An option the entry does not know makes the wrapper unresolvable:
 * the checker asks instead of guessing where the command starts (`stdbuf --output L rm` must not be
 * read as the command `L`).
 *
 * Options are parsed the way GNU getopt does for these tools: short options cluster (`-xc`), a short
 * option's value may be attached (`-n5`) or the next word, a long option's value follows `=` or is
 * the next word, and a long option may be abbreviated to a unique prefix (`--out` for `--output`).
 * Parsing stops at the first operand, as these wrappers do (`+` in their getopt strings).
 */

export interface WrapperSpec {
  /** Short options that take a value. */
  shortValue?: string;
  /** Short options whose value is optional and can only be attached (`-i{}`). */
  shortOptional?: string;
  /** Short options without a value. */
  shortFlag?: string;
  longValue?: readonly string[];
  /** Long options whose value is optional and can only follow `=`. */
  longOptional?: readonly string[];
  longFlag?: readonly string[];
  /** Operands before the command (`timeout DURATION`, `chroot NEWROOT`, `flock FILE`). */
  leading?: number;
  /** `NAME=VALUE` words before the command set its environment (`env`). */
  assignments?: boolean;
  /** Options that mean no command follows (`command -v`, `taskset -p`). */
  noCommand?: readonly string[];
  /** Options whose value is a shell script (`flock -c`, `su -c`, `env -S` splits into a command). */
  scriptOptions?: readonly string[];
  /** A numeric option like `nice -5`. */
  numericFlag?: boolean;
  /** The wrapped command gets more arguments at run time (`xargs`): they are not known statically. */
  appendsArguments?: boolean;
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    shortValue: 'uCS',
    shortFlag: 'i0v',
    longValue: ['unset', 'chdir', 'split-string'],
    longOptional: ['ignore-signal', 'default-signal', 'block-signal'],
    longFlag: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
    assignments: true,
    scriptOptions: ['-S', '--split-string'],
  },
  nice: { shortValue: 'n', longValue: ['adjustment'], numericFlag: true },
  ionice: {
    shortValue: 'cnpPu',
    shortFlag: 't',
    longValue: ['class', 'classdata', 'pid', 'pgid', 'uid'],
    longFlag: ['ignore'],
    noCommand: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
  },
  timeout: {
    shortValue: 'sk',
    shortFlag: 'v',
    longValue: ['signal', 'kill-after'],
    longFlag: ['preserve-status', 'foreground', 'verbose'],
    leading: 1,
  },
  stdbuf: { shortValue: 'ioe', longValue: ['input', 'output', 'error'] },
  nohup: {},
  setsid: { shortFlag: 'cfw', longFlag: ['ctty', 'fork', 'wait'] },
  time: {
    shortValue: 'fo',
    shortFlag: 'apqvV',
    longValue: ['format', 'output'],
    longFlag: ['append', 'portability', 'verbose', 'quiet'],
  },
  command: { shortFlag: 'p', noCommand: ['-v', '-V'] },
  builtin: {},
  exec: { shortValue: 'a', shortFlag: 'cl' },
  xargs: {
    shortValue: 'aEdILnPs',
    shortOptional: 'eil',
    shortFlag: '0oprtx',
    longValue: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    longOptional: ['eof', 'replace', 'max-lines'],
    longFlag: ['null', 'interactive', 'no-run-if-empty', 'open-tty', 'verbose', 'exit', 'show-limits'],
    appendsArguments: true,
  },
  sudo: {
    shortValue: 'ugChpUrtDRT',
    shortFlag: 'AbEeHiKklnPSsVvN',
    longValue: [
      'user',
      'group',
      'close-from',
      'host',
      'prompt',
      'other-user',
      'role',
      'type',
      'chdir',
      'chroot',
      'command-timeout',
    ],
    longFlag: [
      'askpass',
      'background',
      'preserve-env',
      'edit',
      'set-home',
      'login',
      'remove-timestamp',
      'reset-timestamp',
      'list',
      'non-interactive',
      'preserve-groups',
      'stdin',
      'shell',
      'validate',
      'no-update',
    ],
  },
  doas: { shortValue: 'uC', shortFlag: 'nsL' },
  pkexec: { longValue: ['user'], longFlag: ['disable-internal-agent', 'keep-cwd'] },
  run0: {
    shortValue: 'uDg',
    longValue: [
      'user',
      'group',
      'chdir',
      'setenv',
      'nice',
      'unit',
      'property',
      'description',
      'slice',
      'background',
    ],
    longFlag: ['no-ask-password', 'machine', 'pty', 'pipe'],
  },
  chroot: { longValue: ['userspec', 'groups'], longFlag: ['skip-chdir'], leading: 1 },
  flock: {
    shortValue: 'wEc',
    shortFlag: 'sexnuoFv',
    longValue: ['timeout', 'conflict-exit-code', 'command'],
    longFlag: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose'],
    leading: 1,
    scriptOptions: ['-c', '--command'],
  },
  taskset: {
    shortFlag: 'acp',
    longFlag: ['all-tasks', 'cpu-list', 'pid'],
    leading: 1,
    noCommand: ['-p', '--pid'],
  },
  prlimit: {
    shortValue: 'po',
    shortOptional: 'cdefilmnqrstuvxy',
    longValue: ['pid', 'output'],
    longOptional: [
      'core',
      'data',
      'fsize',
      'memlock',
      'rss',
      'nofile',
      'stack',
      'cpu',
      'nproc',
      'as',
      'locks',
      'sigpending',
      'msgqueue',
      'nice',
      'rtprio',
      'rttime',
    ],
    longFlag: ['noheadings', 'raw', 'verbose'],
    noCommand: ['-p', '--pid'],
  },
  setpriv: {
    shortFlag: 'd',
    longValue: [
      'reuid',
      'regid',
      'ruid',
      'euid',
      'rgid',
      'egid',
      'groups',
      'inh-caps',
      'ambient-caps',
      'bounding-set',
      'securebits',
      'pdeathsig',
      'selinux-label',
      'apparmor-profile',
      'landlock-access',
      'landlock-rule',
      'seccomp-filter',
    ],
    longFlag: ['dump', 'clear-groups', 'keep-groups', 'init-groups', 'no-new-privs', 'nnp', 'reset-env'],
  },
  unshare: {
    shortValue: 'SGRw',
    shortFlag: 'mupinUCTfrc',
    longValue: [
      'propagation',
      'setgroups',
      'map-user',
      'map-group',
      'map-users',
      'map-groups',
      'setuid',
      'setgid',
      'root',
      'wd',
      'monotonic',
      'boottime',
    ],
    longOptional: ['mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'mount-proc', 'kill-child'],
    longFlag: ['fork', 'map-root-user', 'map-current-user', 'map-auto', 'keep-caps'],
  },
  chrt: {
    shortValue: 'TPD',
    shortFlag: 'abdfioRrv',
    longValue: ['sched-runtime', 'sched-period', 'sched-deadline'],
    longFlag: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose'],
    leading: 1,
    noCommand: ['-p', '--pid', '-m', '--max'],
  },
  numactl: {
    shortValue: 'imNCpP',
    shortFlag: 'laHs',
    longValue: [
      'interleave',
      'membind',
      'cpunodebind',
      'physcpubind',
      'preferred',
      'preferred-many',
      'weighted-interleave',
    ],
    longFlag: ['localalloc', 'all', 'balancing'],
    noCommand: ['-H', '--hardware', '-s', '--show'],
  },
  setarch: {
    shortFlag: 'vRFZLXBIST3',
    longFlag: [
      'verbose',
      'addr-no-randomize',
      'fdpic-funcptrs',
      'mmap-page-zero',
      'addr-compat-layout',
      'read-implies-exec',
      '32bit',
      'short-inode',
      'whole-seconds',
      'sticky-timeouts',
      '3gb',
      '4gb',
      'uname-2.6',
    ],
    leading: 1,
  },
  busybox: {},
  toybox: {},
  chronic: { shortFlag: 've' },
  unbuffer: { shortFlag: 'p' },
  eatmydata: {},
  fakeroot: {},
  catchsegv: {},
  'dbus-run-session': {},
  faketime: { shortValue: 'm', shortFlag: 'f', leading: 1 },
  runuser: {
    shortValue: 'ugGsw',
    shortFlag: 'lmpP',
    longValue: [
      'user',
      'group',
      'supp-group',
      'shell',
      'whitelist-environment',
      'command',
      'session-command',
    ],
    longFlag: ['login', 'preserve-environment', 'pty'],
    scriptOptions: ['-c', '--command', '--session-command'],
  },
  sg: { leading: 1 },
  strace: {
    shortValue: 'abeEIOopPsSuUX',
    shortFlag: 'cCdDfFhiknqrtTvVwxyYzZ',
    longValue: [
      'output',
      'attach',
      'trace',
      'signal',
      'status',
      'user',
      'env',
      'string-limit',
      'summary-sort-by',
      'trace-path',
      'decode-fds',
    ],
    longFlag: [
      'follow-forks',
      'output-separately',
      'summary-only',
      'summary',
      'no-abbrev',
      'verbose',
      'quiet',
      'instruction-pointer',
      'stack-trace',
    ],
  },
  ltrace: {
    shortValue: 'aAeElnopsuwxX',
    shortFlag: 'bcCdfhiLrStTV',
    longValue: ['output', 'config'],
    longFlag: ['demangle', 'library'],
  },
};

/** The wrapped command, or why it cannot be found. */
export type Unwrapped =
  | { kind: 'none' }
  | { kind: 'argv'; argv: string[]; envAssignments: string[] }
  | { kind: 'script'; source: string }
  | { kind: 'unknown'; why: string };

/** Where `name` (a key of WRAPPERS) would find its command in `args` (the words after its name). */
export function unwrap(name: string, args: readonly string[]): Unwrapped {
  const spec = WRAPPERS[name];
  if (!spec) return { kind: 'none' };
  const longNames = [...(spec.longValue ?? []), ...(spec.longOptional ?? []), ...(spec.longFlag ?? [])];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const written = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const matches = longNames.filter((l) => l === written || l.startsWith(written));
      const long = matches.includes(written) ? written : matches.length === 1 ? matches[0] : undefined;
      if (long === undefined) return { kind: 'unknown', why: `${name} option ${arg} is not known` };
      let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
      if (spec.longValue?.includes(long) && value === undefined) {
        value = args[++i];
        if (value === undefined) return { kind: 'unknown', why: `${name} option --${long} lacks its value` };
      } else if (spec.longFlag?.includes(long) && value !== undefined) {
        return { kind: 'unknown', why: `${name} option --${long} takes no value` };
      }
      if (spec.noCommand?.includes(`--${long}`)) return { kind: 'none' };
      if (spec.scriptOptions?.includes(`--${long}`) && value !== undefined) {
        return { kind: 'script', source: [value, ...args.slice(i + 1)].join(' ') };
      }
      continue;
    }
    if (spec.numericFlag && /^-\d+$/.test(arg)) continue;
    // A short cluster: flags, then perhaps one option whose value is the rest or the next word.
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k]!;
      const option = `-${letter}`;
      if (spec.noCommand?.includes(option)) return { kind: 'none' };
      if (spec.shortFlag?.includes(letter)) continue;
      if (spec.shortOptional?.includes(letter)) break;
      if (spec.shortValue?.includes(letter)) {
        let value = arg.slice(k + 1);
        if (value === '') {
          const next = args[++i];
          if (next === undefined) return { kind: 'unknown', why: `${name} option ${option} lacks its value` };
          value = next;
        }
        if (spec.scriptOptions?.includes(option)) {
          return { kind: 'script', source: [value, ...args.slice(i + 1)].join(' ') };
        }
        break;
      }
      return { kind: 'unknown', why: `${name} option ${option} is not known` };
    }
  }
  const envAssignments: string[] = [];
  if (spec.assignments) {
    while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!)) envAssignments.push(args[i++]!);
  }
  const leading = spec.leading ?? 0;
  if (args.length - i < leading) return { kind: 'none' };
  const argv = args.slice(i + leading);
  if (argv.length === 0) return { kind: 'none' };
  return { kind: 'argv', argv, envAssignments };
}
