import { spawn } from 'node:child_process';
import path from 'node:path';
import type { OsSandboxPolicy } from '../../sandbox/os-policy.js';
import { type UnlistedHostDecider, type WrappedCommand, wrapCommand } from '../../sandbox/os-sandbox.js';
import { errorResult, type Tool, type ToolResult } from '../tool.js';
import { BASH_ENV_RULE, childEnvironment, type Environment } from './bash-env.js';
import { HeadTailBuffer } from './output-cap.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** After SIGTERM on timeout, how long the process group gets before SIGKILL. */
export const BASH_KILL_GRACE_MS = 1_000;
/**
 * After bash exits, how long we keep reading output. A process that left the group (`setsid`, a
 * daemon) can hold our pipes open forever; past this we close them and answer with what we have.
 */
export const BASH_OUTPUT_DRAIN_MS = 200;

export interface BashToolOptions {
  /** Used when a call gives no `timeout_ms`; capped at BASH_MAX_TIMEOUT_MS. Default BASH_DEFAULT_TIMEOUT_MS. */
  defaultTimeoutMs?: number;
  /**
   * The environment commands start from; read at every call. Default `process.env`. Secret-looking
   * variables are removed from it whatever is passed (see bash-env.ts).
   */
  environment?: Environment;
  /**
   * Further variable names to remove (exact names), e.g. every variable the config references through
   * `${VAR}`: they were meant for one server, not for every command.
   */
  dropVariables?: readonly string[];
  /**
   * Run every call in the OS sandbox with this policy (see src/sandbox/os-policy.ts). Absent: calls run
   * unsandboxed (bypass mode, or where no sandbox can run and the permission service asks instead).
   */
  sandbox?: BashSandbox;
}

/** How bash calls are contained: the policy of a call, and who answers for hosts it does not list. */
export interface BashSandbox {
  /** Read at every call (the config may have been extended since). `null`: this call runs unsandboxed. */
  policyFor(projectRoot: string): OsSandboxPolicy | null;
  onUnlistedHost?: UnlistedHostDecider;
  /**
   * Told what the sandbox blocked for a command (paths, hosts): the permission service lets exactly
   * that command run again outside the sandbox, and only after asking (see `outside_sandbox`).
   */
  onBlocked?(command: string, blocked: string): void;
}

interface RunSettings {
  defaultTimeoutMs: number;
  environment: () => Record<string, string>;
  sandbox?: BashSandbox;
}

export interface BashArgs {
  command: string;
  timeout_ms?: number;
  description?: string;
  /** Run again outside the OS sandbox a command it blocked; the permission service asks first. */
  outside_sandbox?: boolean;
}

/** A bash tool; options change what the model may not (the default timeout, the environment). */
export function createBashTool(options: BashToolOptions = {}): Tool<BashArgs> {
  const settings: RunSettings = {
    defaultTimeoutMs: Math.min(options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS),
    environment: () => childEnvironment(options.environment ?? process.env, options.dropVariables),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  };
  return {
    ...bashTool,
    execute: (args, context) => runCommand(args, context.projectRoot, context.signal, settings),
    timeoutMsFor: (args) => callDeadline(args, settings),
  };
}

/** Time for the process group to die after its timeout and for the output to drain, with a margin. */
const BASH_DEADLINE_MARGIN_MS = BASH_KILL_GRACE_MS + BASH_OUTPUT_DRAIN_MS + 2_000;

/** The call's own timeout, plus the time bash needs to end it: the registry waits that long. */
function callDeadline(args: BashArgs, settings: RunSettings): number {
  return (
    Math.min(args.timeout_ms ?? settings.defaultTimeoutMs, BASH_MAX_TIMEOUT_MS) + BASH_DEADLINE_MARGIN_MS
  );
}

const DEFAULT_SETTINGS: RunSettings = {
  defaultTimeoutMs: BASH_DEFAULT_TIMEOUT_MS,
  environment: () => childEnvironment(process.env),
};

export const bashTool: Tool<BashArgs> = {
  name: 'bash',
  description:
    'Run a shell command with bash in the project root and return its combined stdout and stderr and its ' +
    'exit code. A non-zero exit code is reported, not treated as a failure of the tool. Each call starts a ' +
    'fresh shell: `cd` and exported variables do not carry over. stdin is empty.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, description: 'The command line to run.' },
      timeout_ms: {
        type: 'integer',
        minimum: 1,
        maximum: BASH_MAX_TIMEOUT_MS,
        description: `Kill the command after this many milliseconds. Default ${BASH_DEFAULT_TIMEOUT_MS}.`,
      },
      description: {
        type: 'string',
        description: 'A few words on what the command does, shown to the user.',
      },
      outside_sandbox: {
        type: 'boolean',
        description:
          'Only to run again, unchanged, a command the OS sandbox blocked (its result said so): runs it ' +
          'uncontained. The user is always asked first; prefer a way that works inside the sandbox.',
      },
    },
    required: ['command'],
    additionalProperties: false,
  },
  category: 'execute',
  concurrencySafe: false,
  hardConstraints: [
    `Output is capped at ${BASH_MAX_OUTPUT_CHARS} characters (start and end kept).`,
    `The command and everything it started are killed after the timeout (default ${BASH_DEFAULT_TIMEOUT_MS / 1000} s, max ${BASH_MAX_TIMEOUT_MS / 1000} s).`,
    'Background processes started by the command are stopped when the command finishes.',
    BASH_ENV_RULE,
  ],
  commandOf: (args) => args.command,
  leavesSandbox: (args) => args.outside_sandbox === true,
  // The tool's own default timeout applies whatever the registry does: a call never runs unbounded.
  execute: (args, context) => runCommand(args, context.projectRoot, context.signal, DEFAULT_SETTINGS),
  timeoutMsFor: (args) => callDeadline(args, DEFAULT_SETTINGS),
};

async function runCommand(
  args: BashArgs,
  cwd: string,
  signal: AbortSignal,
  settings: RunSettings,
): Promise<ToolResult> {
  // outside_sandbox reaches here only past the permission service, which asked the user plainly.
  const policy = args.outside_sandbox === true ? null : (settings.sandbox?.policyFor(cwd) ?? null);
  if (!policy) return runProcess(['bash', '-c', args.command], args, cwd, signal, settings);
  let wrapped: WrappedCommand;
  try {
    wrapped = await wrapCommand(args.command, policy, settings.sandbox?.onUnlistedHost);
  } catch (error) {
    // Fail closed: a command that cannot be contained does not run.
    return errorResult(
      `bash: the OS sandbox could not start, so the command did not run: ${(error as Error).message}`,
    );
  }
  let result: ToolResult;
  let blockedHosts: string[] = [];
  let removed: string[] = [];
  try {
    result = await runProcess(wrapped.argv, args, cwd, signal, settings);
    blockedHosts = wrapped.blockedHosts();
  } finally {
    removed = wrapped.done();
  }
  const blocked = whatWasBlocked(
    result,
    blockedHosts,
    policy,
    removed.map((entry) => path.relative(cwd, entry)),
  );
  if (!blocked) return result;
  settings.sandbox?.onBlocked?.(args.command, blocked.summary);
  return { ...result, content: [...result.content, { type: 'text', text: `\n${blocked.note}` }] };
}

/**
 * Error lines that mean the sandbox refused a file operation, with the path they name: the shell's and
 * coreutils' `path: Read-only file system`, and Python's `[Errno 30] Read-only file system: 'path'`.
 */
const BLOCKED_FILE_LINE =
  /(?:^|\n)[^\n]*?(\/[^\s:'"`]+|[^\s:'"`]+)['"`]?: (?:Read-only file system|Permission denied|Operation not permitted)/g;
const BLOCKED_FILE_PYTHON =
  /\[Errno \d+\] (?:Read-only file system|Permission denied|Operation not permitted): '([^'\n]+)'/g;

/**
 * What the sandbox blocked, so the model (and the person reading along) learns that the command met
 * the sandbox, not a broken file system: the paths it could not write or read, the hosts it could not
 * reach, and the one way to run it uncontained (a question to the user). `summary` is the short form
 * the permission question quotes.
 */
function whatWasBlocked(
  result: ToolResult,
  blockedHosts: string[],
  policy: OsSandboxPolicy,
  removed: string[],
): { note: string; summary: string } | undefined {
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const paths = new Set<string>();
  for (const match of text.matchAll(BLOCKED_FILE_LINE)) paths.add(match[1]!);
  for (const match of text.matchAll(BLOCKED_FILE_PYTHON)) paths.add(match[1]!);
  const notes: string[] = [];
  const summary: string[] = [];
  if (paths.size > 0) {
    const shown = [...paths].slice(0, 10).join(', ');
    summary.push(`access to ${shown}`);
    notes.push(
      `[sandbox: blocked access to ${shown}. Commands may write only in the project root ` +
        `and the session temp folder (not its protected paths: .git/hooks, .git/config, .furflycode/, .mcp.json, FURFLY.md), ` +
        'and may not read credential stores.]',
    );
  }
  if (removed.length > 0) {
    const shown = removed.slice(0, 10).join(', ');
    summary.push(`creating ${shown}`);
    notes.push(
      `[sandbox: removed what the command created: ${shown}. FURFLY.md, .furflycode/ and .mcp.json are ` +
        "furfly's own instructions and config, in every folder of the project: commands may not create or " +
        'change them; write_file asks the user first.]',
    );
  }
  for (const line of blockedHosts.slice(0, 10)) {
    summary.push(`network: ${line}`);
    notes.push(`[sandbox: network blocked: ${line}]`);
  }
  if (notes.length === 0 && /Could not resolve host|proxy|403 Forbidden|Network is unreachable/i.test(text)) {
    summary.push('the network');
    notes.push(
      policy.allowedHosts.length === 0
        ? '[sandbox: the network is off for commands; a host must be listed in sandbox.allowed_hosts]'
        : `[sandbox: only these hosts are reachable: ${policy.allowedHosts.join(', ')}]`,
    );
  }
  if (notes.length === 0) return undefined;
  notes.push(
    '[sandbox: to run this exact command again outside the sandbox (uncontained), call bash with the same ' +
      'command and outside_sandbox: true. The user is asked first; in -p it runs only if furfly was started ' +
      'with --retry-outside-sandbox. Prefer a way that works inside the sandbox.]',
  );
  return { note: notes.join('\n'), summary: summary.join('; ') };
}

function runProcess(
  argv: string[],
  args: BashArgs,
  cwd: string,
  signal: AbortSignal,
  settings: RunSettings,
): Promise<ToolResult> {
  const timeoutMs = Math.min(args.timeout_ms ?? settings.defaultTimeoutMs, BASH_MAX_TIMEOUT_MS);
  return new Promise<ToolResult>((resolve) => {
    if (signal.aborted) {
      resolve(errorResult('bash: the call was cancelled before the command started'));
      return;
    }
    const output = new HeadTailBuffer(BASH_MAX_OUTPUT_CHARS);
    // detached: the child leads a new process group, so one kill(-pid) reaches everything it spawned.
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: settings.environment(),
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));

    let stoppedBecause: 'timeout' | 'cancelled' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stopGroup = (why: 'timeout' | 'cancelled') => {
      if (stoppedBecause) return;
      stoppedBecause = why;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), BASH_KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stopGroup('timeout'), timeoutMs);
    const onAbort = () => stopGroup('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Whatever the command left running in its group would hold our pipes open (and outlive us).
      killGroup(child.pid, 'SIGKILL');
      // A process outside the group (setsid, nohup'd daemons) may still hold the pipes: read what
      // arrives shortly, then close our ends so 'close' fires and the call finishes.
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, BASH_OUTPUT_DRAIN_MS);
    });
    child.on('error', (error) => {
      finish(errorResult(`bash: could not start the command: ${error.message}`));
    });
    child.on('close', () => {
      const text = output.toString();
      if (stoppedBecause === 'timeout') {
        finish(
          errorResult(`${text}\n[bash: command timed out after ${timeoutMs} ms and was killed]`.trimStart()),
        );
      } else if (stoppedBecause === 'cancelled') {
        finish(errorResult(`${text}\n[bash: command was cancelled and killed]`.trimStart()));
      } else {
        const status = exit?.signal
          ? `Killed by signal ${exit.signal}`
          : `Exit code: ${exit?.code ?? 'unknown'}`;
        finish({
          isError: false,
          content: [{ type: 'text', text: `${text}${text && !text.endsWith('\n') ? '\n' : ''}${status}` }],
        });
      }
    });

    let finished = false;
    function finish(result: ToolResult): void {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    }
  });
}

function killGroup(pid: number | undefined, killSignal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, killSignal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
