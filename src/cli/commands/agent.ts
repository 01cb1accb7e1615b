/**
 * The default command: `furfly` starts an interactive session, `furfly -p "<prompt>"` runs one task.
 *
 *   furfly [-p <prompt>] [--output-format text|json] [--permission-mode <mode>] [--cwd <dir>] [--config <file>]
 *
 * One-shot exit codes: 0 when the model finished normally, 1 on an error or when a limit ended the
 * turn (max_iterations, unknown tools, cancelled), 2 on a usage error, 141 when stdout's reader
 * closed the pipe early (the turn is stopped quietly and the MCP servers are shut down; the interactive
 * session does the same, see interactive/output-gone.ts). The logic takes its streams as
 * arguments (`runAgentCommand`) so tests run it in-process; `registerAgentCommand` only binds it to cac.
 */
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { CAC } from 'cac';
import type { ToolCallRecord, TurnResult } from '../../agent/loop.js';
import type { ModelProvider } from '../../agent/provider/types.js';
import type { ProviderSettings } from '../../agent/providers.js';
import { type AgentRuntime, startRuntime } from '../../agent/runtime.js';
import type { Usage } from '../../agent/usage.js';
import { nearest } from '../../config/suggest.js';
import type { ServerEvent } from '../../mcp/loader.js';
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from '../../permission/index.js';
import { modelTextStream } from '../../terminal/model-text.js';
import { attributedBlock, terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';
import { COMMAND_NAMES, PROMPT_FROM_STDIN } from '../command-names.js';
import { cwdProblem } from '../cwd-option.js';
import { EXIT_BROKEN_PIPE, watchOutput } from '../interactive/output-gone.js';
import { describeServerEvent, describeToolCall } from '../interactive/render.js';
import { runInteractiveSession } from '../interactive/session.js';
import { readPipedInput, withPipedInput } from '../piped-input.js';
import { LiveLine } from '../progress-line.js';
import { rawOptionValue } from '../raw-option-value.js';

export interface AgentCommandOptions {
  prompt?: string | boolean;
  /** `furfly "task"`: the interactive session starts with this message. */
  firstMessage?: string;
  outputFormat?: string;
  permissionMode?: string;
  /** `--model`: the model for this run (the provider entry's, or the default, otherwise). */
  model?: string;
  cwd?: string;
  config?: string;
  /** `--trust-project`: the project config's risky parts apply for this run, without asking or storing. */
  trustProject?: boolean;
  /**
   * `--retry-outside-sandbox` (with -p only): a bash command the OS sandbox blocked may run again
   * outside it when the model asks (`outside_sandbox: true`), without the question nobody can answer.
   */
  retryOutsideSandbox?: boolean;
}

export interface AgentIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** Aborts the running turn (one-shot: SIGINT). The interactive session handles Ctrl-C itself. */
  signal?: AbortSignal;
  /** Ctrl-C that does not come through a terminal's readline (SIGINT with piped stdin); returns an unsubscribe. */
  onInterrupt?: (handler: () => void) => () => void;
  /** Whether stdin/stdout are a terminal (line editing, colours off otherwise). */
  terminal?: boolean;
  maxRetries?: number;
  providerFactory?: (settings: ProviderSettings) => ModelProvider;
}

/** The JSON document `--output-format json` prints (see docs/getting-started.md). */
export interface OneShotJson {
  result: string;
  toolCalls: { name: string; input: unknown; status: ToolCallRecord['status']; isError: boolean }[];
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  };
  iterations: number;
  stopReason: TurnResult['stopReason'];
  error?: string;
}

export { EXIT_BROKEN_PIPE };

const NORMAL_STOPS: ReadonlySet<string> = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'refusal']);

export async function runAgentCommand(options: AgentCommandOptions, io: AgentIo): Promise<number> {
  const write = (stream: Writable, text: string) => stream.write(text);
  const usage = checkUsage(options);
  if (usage) {
    write(io.stderr, `furfly: ${usage}\n`);
    return 2;
  }
  const cwdUsage = cwdProblem(io.cwd, options.cwd);
  if (cwdUsage) {
    write(io.stderr, `furfly: ${cwdUsage}\n`);
    return 2;
  }
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const permissionMode = options.permissionMode as PermissionMode | undefined;
  // Once stderr's reader is gone (`furfly … 2>&1 | head`) nothing more can be reported there; its
  // write errors must not crash the run (stdout's are handled by each mode: it ends the run).
  const diagnostics = watchOutput(io.stderr);
  try {
    return await runMode(options, io, cwd, permissionMode);
  } finally {
    diagnostics.dispose();
  }
}

function runMode(
  options: AgentCommandOptions,
  io: AgentIo,
  cwd: string,
  permissionMode: PermissionMode | undefined,
): Promise<number> {
  if (typeof options.prompt !== 'string') {
    return runInteractiveSession({
      runtime: {
        cwd,
        configFile: options.config,
        env: io.env,
        homeDir: io.homeDir,
        permissionMode,
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.trustProject === true ? { trustProject: true } : {}),
        maxRetries: io.maxRetries,
        providerFactory: io.providerFactory,
      },
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      terminal: io.terminal ?? false,
      ...(options.firstMessage !== undefined ? { firstMessage: options.firstMessage } : {}),
      onInterrupt: io.onInterrupt,
    });
  }
  return runOneShot(
    options.prompt,
    options.outputFormat === 'json',
    { ...io, cwd },
    options.config,
    permissionMode,
    options.trustProject === true,
    options.model,
    options.retryOutsideSandbox === true,
  );
}

function checkUsage(options: AgentCommandOptions): string | undefined {
  if (options.prompt === true || options.prompt === '') return '-p needs a prompt: furfly -p "<what to do>"';
  if (typeof options.prompt === 'string' && options.prompt.trim() === '') {
    return 'the prompt is blank: say what to do, e.g. furfly -p "list the TODO comments"';
  }
  if (options.firstMessage !== undefined && options.firstMessage.trim() === '') {
    return 'the first message is blank: say what to do, e.g. furfly "list the TODO comments"';
  }
  if (
    options.outputFormat !== undefined &&
    options.outputFormat !== 'text' &&
    options.outputFormat !== 'json'
  ) {
    return `--output-format must be text or json, not "${options.outputFormat}"`;
  }
  if (options.outputFormat === 'json' && typeof options.prompt !== 'string') {
    return '--output-format json needs -p "<prompt>" (the interactive session prints text)';
  }
  if (options.permissionMode !== undefined && !isPermissionMode(options.permissionMode)) {
    return `--permission-mode must be one of ${PERMISSION_MODES.join(', ')}, not "${options.permissionMode}"`;
  }
  if (options.retryOutsideSandbox === true && typeof options.prompt !== 'string') {
    return '--retry-outside-sandbox is for -p "<prompt>" (an interactive session asks before a command leaves the sandbox)';
  }
  if (options.model !== undefined && (typeof options.model !== 'string' || options.model.trim() === '')) {
    return '--model needs a model name, e.g. --model claude-sonnet-4-6';
  }
  return undefined;
}

async function runOneShot(
  prompt: string,
  json: boolean,
  io: AgentIo,
  configFile: string | undefined,
  permissionMode: PermissionMode | undefined,
  trustProject: boolean,
  model: string | undefined,
  retryOutsideSandbox: boolean,
): Promise<number> {
  // One-shot never asks: an untrusted project's risky parts are left out, with one line saying so.
  const setup = startRuntime({
    cwd: io.cwd,
    configFile,
    env: io.env,
    homeDir: io.homeDir,
    permissionMode,
    ...(model !== undefined ? { model } : {}),
    ...(trustProject ? { trustProject: true } : {}),
    ...(retryOutsideSandbox ? { retryOutsideSandbox: true } : {}),
    maxRetries: io.maxRetries,
    providerFactory: io.providerFactory,
    onServerEvent: (event) => reportServerProblem(event, io.stderr),
    // Nobody can answer a server's question here: each one declined or denied is said on stderr.
    onServerRequestNotice: (text) => io.stderr.write(`furfly: ${attributedBlock(text)}\n`),
  });
  if (!setup.ok) {
    io.stderr.write(`${terminalText(setup.message)}\n`);
    return 1;
  }
  const { runtime } = setup;
  for (const notice of runtime.notices) io.stderr.write(`${notice}\n`);
  // The reader of stdout went away (`furfly -p … | head`): stop the turn quietly, close the MCP
  // servers, and exit like a program killed by SIGPIPE (128 + 13), which is what shells expect.
  const output = watchOutput(io.stdout);
  try {
    // Every server gets its chance (each bounded by its own timeout) before the first request.
    await runtime.mcp.ready;
    const signal = io.signal ? AbortSignal.any([io.signal, output.signal]) : output.signal;
    let lineOpen = false;
    // Text output is for people (and may be piped on to a terminal): escapes become visible, and a
    // line of the model's that starts like one of furfly's is marked as the model's.
    const answer = modelTextStream();
    // `@server:uri` mentions attach the resources here too; what could not be attached is said on stderr.
    const attached = await runtime.resources.prepare(prompt, { signal });
    for (const note of attached.notes) if (!json) io.stderr.write(`mcp: ${terminalLine(note)}\n`);
    // No live line here (one-shot output is usually a pipe or a log): a long call's final line says how long.
    const timing = new LiveLine({ write: () => {}, terminal: false });
    const running = runtime.agent.runTurn(prompt, {
      signal,
      attachments: attached.blocks,
      events: {
        toolStart: (call) => timing.start(call.id, call.name),
        toolProgress: (id, progress) => timing.progress(id, progress),
        text: (delta) => {
          if (json) return;
          io.stdout.write(answer.write(delta));
          lineOpen = !delta.endsWith('\n');
        },
        responseEnd: () => {
          const rest = json ? '' : answer.end();
          if (rest) io.stdout.write(rest);
          if (!json && lineOpen) io.stdout.write('\n');
          lineOpen = false;
        },
        toolCall: (record) => {
          const took = timing.end(record.id);
          if (!json)
            io.stderr.write(`${describeToolCall(record)}${took === undefined ? '' : ` (${took})`}\n`);
        },
        notice: (message) => {
          if (!output.signal.aborted) io.stderr.write(`furfly: ${attributedBlock(message)}\n`);
        },
        error: (message) => io.stderr.write(`furfly: error: ${attributedBlock(message)}\n`),
      },
    });
    // Once the pipe is gone the answer has nowhere to go: do not wait for the turn to wind down (an
    // aborted stream that had already been read to its end may never settle), just close and leave.
    // A later failure of the abandoned turn is nobody's news.
    running.catch(() => {});
    const result = await Promise.race([running, output.gone]);
    if (result === undefined || output.signal.aborted) return output.exitCode() ?? EXIT_BROKEN_PIPE;
    recordTurn(runtime, prompt, result);
    if (json) io.stdout.write(`${terminalSafeJson(toJson(result), 2)}\n`);
    return NORMAL_STOPS.has(result.stopReason) ? 0 : 1;
  } finally {
    await runtime.close();
    // Later writes to a closed pipe fail too; they must not become an unhandled 'error' event.
    output.dispose();
  }
}

function reportServerProblem(event: ServerEvent, stderr: Writable): void {
  if (event.status === 'error' || event.status === 'timeout' || event.status === 'needs-login')
    stderr.write(`furfly: ${describeServerEvent(event)}\n`);
}

function recordTurn(runtime: AgentRuntime, prompt: string, result: TurnResult): void {
  runtime.ledger.record({ prompt, requests: result.iterations, usage: result.usage });
}

export function toJson(result: TurnResult): OneShotJson {
  return {
    result: result.text,
    toolCalls: result.toolCalls.map(({ name, input, status, isError }) => ({ name, input, status, isError })),
    usage: apiUsage(result.usage),
    iterations: result.iterations,
    stopReason: result.stopReason,
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}

function apiUsage(usage: Usage): OneShotJson['usage'] {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}

export function registerAgentCommand(cli: CAC): void {
  cli
    .command(
      '[task]',
      'Start the furfly agent (interactive, with "task" as its first message), or run one task with -p',
    )
    .option('-p, --prompt <prompt>', 'Run one task and exit (permission questions are refused)')
    .option('--output-format <format>', 'With -p: text (default) or json')
    .option('--permission-mode <mode>', `Override the config for this run: ${PERMISSION_MODES.join(' | ')}`)
    .option('--model <model>', "Use this model for this run instead of the provider entry's (or the default)")
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .option(
      '--trust-project',
      "Apply the project config's servers, providers and looser permissions for this run",
    )
    .option(
      '--retry-outside-sandbox',
      'With -p: a bash command the OS sandbox blocked may run again outside it, uncontained, when the model asks',
    )
    .example('furfly')
    .example('furfly "explain what src/cli does"')
    .example('furfly -p "list the TODO comments in src/" --output-format json')
    .example('git diff | furfly -p -    # the prompt read from stdin (up to 10 MB)')
    .action(async (_task: unknown, parsed: AgentCommandOptions) => {
      // Read as typed: cac turns `furfly 42` into a number and may take `-` for a word.
      const words = positionalWords(process.argv.slice(2));
      const problem = strayWords(words);
      if (problem) {
        process.stderr.write(`furfly: ${terminalText(problem)}\nRun \`furfly --help\` for usage.\n`);
        process.exitCode = 2;
        return;
      }
      const options = withRawStrings(parsed, process.argv.slice(2));
      if (words[0] !== undefined) options.firstMessage = words[0];
      if (options.prompt === PROMPT_FROM_STDIN) {
        const read = await readPromptFromStdin(process.stdin);
        if (!read.ok) {
          process.stderr.write(`furfly: ${read.message}\n`);
          process.exitCode = read.code;
          return;
        }
        options.prompt = read.text;
      } else if (typeof options.prompt === 'string') {
        // `echo DATA | furfly -p "summarize"`: the piped data follows the prompt (see piped-input.ts).
        const piped = await readPipedInput(process.stdin, {
          limit: MAX_STDIN_PROMPT_BYTES,
          firstByteMs: PIPED_INPUT_WAIT_MS,
          fd: 0,
        });
        if (!piped.ok) {
          process.stderr.write(`furfly: ${piped.message}\n`);
          process.exitCode = piped.code;
          return;
        }
        if (piped.note) process.stderr.write(`furfly: ${piped.note}\n`);
        options.prompt = withPipedInput(options.prompt, piped.text);
      }
      const controller = new AbortController();
      const oneShot = typeof options.prompt === 'string';
      const onSigint = () => {
        // First Ctrl-C cancels the turn cleanly; a second one leaves at once.
        if (controller.signal.aborted) process.exit(130);
        controller.abort();
      };
      if (oneShot) process.on('SIGINT', onSigint);
      const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      try {
        process.exitCode = await runAgentCommand(options, {
          stdin: process.stdin,
          stdout: process.stdout,
          stderr: process.stderr,
          cwd: process.cwd(),
          env: process.env,
          signal: controller.signal,
          terminal,
          // On a terminal, readline turns Ctrl-C into its own event; otherwise it arrives as SIGINT.
          onInterrupt: terminal
            ? undefined
            : (handler) => {
                process.on('SIGINT', handler);
                return () => process.off('SIGINT', handler);
              },
        });
      } finally {
        if (oneShot) process.off('SIGINT', onSigint);
      }
    });
}

/** How long `-p "…"` waits for piped input to start before going on without it. */
const PIPED_INPUT_WAIT_MS = 2000;

/** The most a prompt read from stdin may hold: larger input is refused, not cut. */
export const MAX_STDIN_PROMPT_BYTES = 10 * 1024 * 1024;

/** `-p -`: the whole of stdin is the prompt (a prompt too long for the command line goes this way). */
export async function readPromptFromStdin(
  stdin: Readable,
  limit = MAX_STDIN_PROMPT_BYTES,
): Promise<{ ok: true; text: string } | { ok: false; message: string; code: number }> {
  if ((stdin as Readable & { isTTY?: boolean }).isTTY) {
    return {
      ok: false,
      code: 2,
      message:
        '-p - reads the prompt from stdin, which is a terminal: pipe it in, e.g. cat task.md | furfly -p -',
    };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) {
      stdin.destroy();
      return {
        ok: false,
        code: 2,
        message: `the prompt on stdin is over ${limit / (1024 * 1024)} MB; send a smaller part, or point the agent at a file instead`,
      };
    }
    chunks.push(buffer);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/**
 * Words after `furfly` that are neither a command nor a quoted task: `furfly frobnicate` and
 * `furfly list files` are mistakes (the words would be dropped or half-read), so they are refused with a
 * suggestion. One argument with a space in it is a task, like `claude "query"`.
 */
export function strayWords(words: readonly string[]): string | undefined {
  const [word, ...extra] = words;
  if (word === undefined) return undefined;
  if (extra.length > 0) {
    return `unexpected words after "${word}": quote a task as one argument, e.g. furfly "${words.join(' ')}"`;
  }
  if (/\s/.test(word.trim()) || word.trim() === '') return undefined;
  const suggestion = nearest(word, COMMAND_NAMES);
  return suggestion !== undefined
    ? `unknown command "${word}" (did you mean "${suggestion}"?)`
    : `unknown command "${word}"; to start a session with a task, quote it: furfly "${word} …"`;
}

/** The positional words of the agent command as typed (options and their values left out). */
export function positionalWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...words, ...argv.slice(i + 1)];
    if (arg.startsWith('-') && arg !== '-') {
      if (!arg.includes('=') && VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  '-p',
  '--prompt',
  '--output-format',
  '--permission-mode',
  '--model',
  '--cwd',
  '--config',
]);

/**
 * cac turns option values that look like numbers into numbers (`-p 42`, `--cwd 2024`, `-p 0x10`),
 * which would start the interactive session or crash on a path. A prompt and paths are text, so
 * their values are read again, as typed, from the arguments.
 */
export function withRawStrings(options: AgentCommandOptions, argv: readonly string[]): AgentCommandOptions {
  const result = { ...options };
  const prompt = rawOptionValue(argv, ['-p', '--prompt']);
  const cwd = rawOptionValue(argv, ['--cwd']);
  const config = rawOptionValue(argv, ['--config']);
  const model = rawOptionValue(argv, ['--model']);
  if (prompt !== undefined) result.prompt = prompt;
  if (model !== undefined) result.model = model;
  if (cwd !== undefined) result.cwd = cwd;
  if (config !== undefined) result.config = config;
  return result;
}
