/**
 * The interactive session: a readline prompt (line editing and history on a terminal), the agent's
 * streamed answers, one line per tool call, permission questions, slash commands and Ctrl-C.
 *
 * MCP servers connect in the background: the prompt is usable at once, the prompt itself shows how
 * many servers are still connecting, each outcome is printed once, and a server's tools are offered
 * from the next model request after it is ready (the registry is read at every request).
 *
 * Ctrl-C during a turn aborts it (the stream and in-flight tool calls, which cancel remote calls on
 * their server); at an empty prompt it quits, like /exit and the end of input, shutting every MCP
 * server down.
 *
 * When stdout's reader goes away (`furfly | head -1`, a terminal that is gone), the running turn is
 * stopped, the MCP servers are shut down and the session returns 141 (128 + SIGPIPE) without a word:
 * there is nobody left to read one (see output-gone.ts).
 */
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { UserBlock } from '../../agent/messages.js';
import type { PermissionAnswer, PermissionAsker } from '../../agent/permission-prompt.js';
import { type RuntimeOptions, startRuntime } from '../../agent/runtime.js';
import type { ServerEvent } from '../../mcp/loader.js';
import type { LogLevel } from '../../mcp/server-features.js';
import { atLeast, type LogEntry } from '../../mcp/server-log.js';
import { modelTextStream } from '../../terminal/model-text.js';
import { attributedBlock, terminalLine, terminalText } from '../../terminal/sanitize.js';
import { errorText } from '../../util/error-text.js';
import { LiveLine } from '../progress-line.js';
import { type Completer, createCompleter } from './completion.js';
import { createServerQuestionPrompter, openInBrowser } from './elicitation-form.js';
import { LineQueue } from './line-queue.js';
import { isMcpCommand, type McpCommandOutcome, mcpHelpLines, runMcpCommand } from './mcp-commands.js';
import { watchOutput } from './output-gone.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, PasteInput } from './paste.js';
import { describePermissionQuestion, describeServerEvent, describeToolCall } from './render.js';
import { runSlashCommand, SLASH_COMMANDS } from './slash-commands.js';
import { settleProjectTrust } from './trust-question.js';

export interface InteractiveOptions {
  runtime: Omit<RuntimeOptions, 'asker' | 'onServerEvent'>;
  stdin: Readable;
  stdout: Writable;
  /** Where start-up failures go; `stdout` when absent. */
  stderr?: Writable;
  /** True on a real terminal: line editing, history, prompt redraws. */
  terminal: boolean;
  /** Extra Ctrl-C sources (SIGINT when stdin is not a terminal, tests); returns an unsubscribe. */
  onInterrupt?: (handler: () => void) => () => void;
  /** `furfly "task"`: sent as the first message, once the MCP servers have had their chance. */
  firstMessage?: string;
}

const HISTORY_SIZE = 500;
/** A message longer than this gets a warning (and, on a terminal, a question) before it is sent. */
export const LARGE_MESSAGE_CHARS = 100_000;

export async function runInteractiveSession(options: InteractiveOptions): Promise<number> {
  const { stdout } = options;
  const queue = new LineQueue();
  // Watched before the first write: the reader may be gone before the banner is out.
  const output = watchOutput(stdout);
  let busy = false;
  let turn: AbortController | undefined;

  // On a terminal pastes bypass the line editor (see paste.ts); piped input is read linearly anyway.
  const paste = options.terminal ? terminalPasteInput(options.stdin) : undefined;
  // Tab completion of commands, prompts and `@server:uri` mentions; bound once the runtime exists.
  let complete: Completer | undefined;
  const rl = readline.createInterface({
    ...(options.terminal
      ? {
          completer: (line: string, done: Parameters<Completer>[1]) =>
            complete ? complete(line, done) : done(null, [[], line]),
        }
      : {}),
    input: paste ?? options.stdin,
    output: stdout,
    terminal: options.terminal,
    historySize: HISTORY_SIZE,
    prompt: '> ',
  });
  if (paste) stdout.write(BRACKETED_PASTE_ON);
  rl.on('line', (line) => queue.push(paste ? paste.expand(line) : line));
  rl.on('close', () => {
    if (paste) {
      options.stdin.unpipe(paste);
      options.stdin.pause();
    }
    queue.end();
  });

  // The live line of long tool calls (a terminal only); anything printed erases it first.
  const live = new LiveLine({
    write: (text) => stdout.write(text),
    terminal: options.terminal,
    columns: () => (stdout as Writable & { columns?: number }).columns,
  });

  /** Prints a whole line above the prompt without mangling what the person is typing. */
  const print = (text: string) => {
    live.erase();
    if (options.terminal && !busy) {
      readline.clearLine(stdout, 0);
      readline.cursorTo(stdout, 0);
    }
    stdout.write(`${text}\n`);
    if (options.terminal && !busy && queue.waiting) rl.prompt(true);
  };

  const closeInput = () => {
    if (paste && !output.signal.aborted) stdout.write(BRACKETED_PASTE_OFF);
    rl.close();
  };

  /** Set when /exit is typed at a permission question: the call is denied and the session ends after the turn. */
  let quitRequested = false;
  /**
   * Which lines may answer a question. On a terminal only what the person types after seeing it:
   * lines typed or pasted ahead (a task typed during the turn, the tail of a paste) are discarded,
   * with a note, so they can never approve a call unseen. Piped stdin is a script written in advance,
   * so its queued lines do answer, in order. `/exit` at a question denies the call and quits.
   */
  const asker: PermissionAsker = {
    async ask(question, signal): Promise<PermissionAnswer> {
      if (options.terminal) {
        const dropped = queue.discard();
        if (dropped > 0) {
          stdout.write(
            `(${dropped} line${dropped === 1 ? '' : 's'} typed ahead discarded: a question takes only what you type after it)\n`,
          );
        }
      }
      for (;;) {
        stdout.write(`${describePermissionQuestion(question)}\n? `);
        const answer = (await queue.next(signal))?.trim().toLowerCase();
        if (answer === undefined) {
          stdout.write('\n');
          return 'deny';
        }
        if (answer === 'a' || answer === 'y' || answer === 'once') return 'once';
        // Only the answers the question offers: leaving the sandbox is never "for the session".
        if ((answer === 's' || answer === 'session') && question.kind !== 'outside-sandbox') return 'session';
        if ((answer === 'p' || answer === 'always') && question.kind === 'host') return 'always';
        if (answer === 'd' || answer === 'n' || answer === 'deny') return 'deny';
        if (answer === '/exit') {
          // No further model request either: the turn stops here and the session ends.
          quitRequested = true;
          turn?.abort();
          return 'deny';
        }
        const letters =
          question.kind === 'outside-sandbox'
            ? 'a or d'
            : question.kind === 'host'
              ? 'a, s, p or d'
              : 'a, s or d';
        stdout.write(`Please answer ${letters} (or /exit to deny and quit).\n`);
      }
    },
  };

  const pending = new Set<string>();
  const shown = new Set<string>();
  const updatePrompt = () => rl.setPrompt(pending.size > 0 ? `[mcp: ${pending.size} connecting] > ` : '> ');
  const onServerEvent = (event: ServerEvent) => {
    if (event.status === 'connecting') pending.add(event.server);
    else pending.delete(event.server);
    // The prompt changes before anything is printed, so the redraw after the line shows the new count.
    updatePrompt();
    const line = event.status === 'connecting' ? undefined : describeServerEvent(event);
    // Failures (and readiness) are shown once; a server that keeps failing the same way stays quiet.
    if (line !== undefined && !shown.has(line)) {
      shown.add(line);
      print(line);
    } else if (options.terminal && !busy && queue.waiting) {
      rl.prompt(true);
    }
  };

  // Before anything from the project config runs: on a terminal, ask about its untrusted risky parts.
  // Piped input never answers this question (it was written before the question existed).
  let trustProject = options.runtime.trustProject;
  if (trustProject === undefined && options.terminal) {
    // As with permission questions: only what is typed after the question can answer it.
    queue.discard();
    trustProject = await settleProjectTrust(options.runtime, {
      write: (text) => stdout.write(text),
      nextLine: () => queue.next(),
    });
  }
  // Servers' questions (elicitation forms, links, requests to use the model): the same input rule as
  // permission questions, one at a time (see elicitation-form.ts).
  const serverRequestPrompter = createServerQuestionPrompter({
    write: (text) => stdout.write(text),
    nextLine: (signal) => queue.next(signal ?? turn?.signal),
    discardTypedAhead: () => (options.terminal ? queue.discard() : 0),
    openUrl: openInBrowser(options.runtime.env),
  });
  // A server's log messages at or above its `log_level` (default warning) are shown; all are in its log.
  let logLevels: Readonly<Record<string, LogLevel>> = {};
  const onServerLog = (server: string, entry: LogEntry) => {
    if (entry.logger === 'furfly' || !atLeast(entry.level, logLevels[server] ?? 'warning')) return;
    const logger = entry.logger ? ` ${terminalLine(entry.logger)}` : '';
    // Each further line of the message is marked as the server's: none can pose as furfly's own.
    print(`mcp: ${terminalLine(server)} [${entry.level}]${logger}: ${attributedBlock(entry.text)}`);
  };
  const setup = startRuntime({
    ...options.runtime,
    ...(trustProject === undefined ? {} : { trustProject }),
    asker,
    onServerEvent,
    serverRequestPrompter,
    onServerRequestNotice: (text) => print(`furfly: ${attributedBlock(text)}`),
    onServerLog,
  });
  if (!setup.ok) {
    (options.stderr ?? stdout).write(`${terminalText(setup.message)}\n`);
    closeInput();
    output.dispose();
    return 1;
  }
  const { runtime } = setup;
  complete = createCompleter({
    mcp: runtime.mcp,
    slashCommands: [...Object.keys(SLASH_COMMANDS), 'resources'],
  });
  logLevels = Object.fromEntries(
    Object.entries(runtime.config.mcp_servers).map(([name, server]) => [name, server.log_level ?? 'warning']),
  );
  live.redact = (text) => runtime.redactor.text(text);
  runtime.resources.onstale = (mention) =>
    print(
      `mcp: @${terminalLine(mention.server)}:${terminalLine(mention.uri)} changed; the new version goes with your next message`,
    );
  for (const notice of runtime.notices) (options.stderr ?? stdout).write(`${notice}\n`);

  // Output gone: the prompt loop ends (as at the end of input) and a running turn is stopped.
  output.signal.addEventListener(
    'abort',
    () => {
      turn?.abort();
      queue.end();
    },
    { once: true },
  );

  const interrupt = () => {
    if (busy && turn && !turn.signal.aborted) {
      stdout.write('\n^C cancelling…\n');
      turn.abort();
    } else if (!busy && rl.line === '') {
      queue.end();
    } else if (!busy) {
      // Ctrl-C with text typed throws the text away, as shells do.
      rl.write(null, { ctrl: true, name: 'u' });
    }
  };
  rl.on('SIGINT', interrupt);
  const unsubscribe = options.onInterrupt?.(interrupt);

  /** Says how large a message is before it goes to the model; on a terminal, asks first. */
  const confirmLargeMessage = async (text: string): Promise<boolean> => {
    const lines = text.split('\n').length;
    print(
      `furfly: warning: this message is ${formatSize(text.length)} (${lines} line${lines === 1 ? '' : 's'}, about ${Math.ceil(text.length / 4).toLocaleString('en-US')} tokens); all of it goes to the model.`,
    );
    if (!options.terminal) return true;
    stdout.write('Send it? [y/N] ');
    const answer = (await queue.next())?.trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') return true;
    print('Not sent.');
    return false;
  };

  const configured = Object.keys(runtime.config.mcp_servers).length;
  stdout.write(
    [
      `furfly: ${terminalLine(runtime.agent.provider.model)} via ${terminalLine(runtime.agent.provider.name)}, permission mode ${runtime.permissions.currentMode()}.`,
      `Type a task, or /help for commands. Ctrl-C cancels a turn; at an empty prompt it quits.${configured ? `\nmcp: connecting ${configured} server${configured === 1 ? '' : 's'} in the background.` : ''}`,
    ].join('\n') + '\n',
  );

  let firstMessage = options.firstMessage;
  // Piped input and a task on the command line are written before any server is ready: like -p, the
  // first task waits until every server has connected or failed (each bounded by its own timeout), so
  // the model sees the MCP tools. A person typing at a terminal is not kept waiting.
  let serversAwaited = options.terminal && firstMessage === undefined;
  try {
    for (;;) {
      rl.prompt();
      const line = firstMessage ?? (await queue.next());
      if (firstMessage !== undefined) stdout.write(`${terminalLine(firstMessage)}\n`);
      firstMessage = undefined;
      // Lines piped in ahead are not run once the output is gone: nobody would see what they do.
      if (line === undefined || output.signal.aborted) break;
      let text = line.trim();
      if (text === '') continue;
      let attachments: UserBlock[] = [];
      if (text.startsWith('/') && isMcpCommand(text)) {
        let outcome: McpCommandOutcome = { kind: 'done' };
        try {
          outcome = await runMcpCommand(text, {
            runtime,
            print,
            ...(options.terminal
              ? {
                  ask: (question: string) => {
                    stdout.write(question);
                    return queue.next();
                  },
                }
              : {}),
          });
        } catch (error) {
          print(`furfly: internal error in ${text.split(/\s/)[0]}: ${oneLine(error)}`);
        }
        if (outcome.kind === 'done') continue;
        text = outcome.text;
        attachments = outcome.attachments;
      } else if (text.startsWith('/')) {
        let outcome: 'quit' | undefined;
        try {
          outcome = runSlashCommand(text, { runtime, print });
        } catch (error) {
          print(`furfly: internal error in ${text.split(/\s/)[0]}: ${oneLine(error)}`);
        }
        if (outcome === 'quit') break;
        if (text === '/help') {
          try {
            print(['MCP:', ...(await mcpHelpLines(runtime))].join('\n'));
          } catch (error) {
            print(`furfly: internal error in /help: ${oneLine(error)}`);
          }
        }
        continue;
      }
      if (text.length > LARGE_MESSAGE_CHARS && !(await confirmLargeMessage(text))) continue;
      if (!serversAwaited) {
        serversAwaited = true;
        await runtime.mcp.ready;
      }
      // `@server:uri` mentions: read and attached (with updates of resources attached before).
      const prepared = await runtime.resources.prepare(text);
      for (const note of prepared.notes) print(`mcp: ${terminalLine(note)}`);
      attachments = [...attachments, ...prepared.blocks];
      busy = true;
      turn = new AbortController();
      let lineOpen = false;
      // The model's words are shown, never obeyed: escapes become visible text, and a line that starts
      // like one of furfly's is marked as the model's.
      const answer = modelTextStream();
      try {
        const running = runtime.agent.runTurn(text, {
          signal: turn.signal,
          attachments,
          events: {
            text: (delta) => {
              stdout.write(answer.write(delta));
              lineOpen = !delta.endsWith('\n');
            },
            responseEnd: () => {
              const rest = answer.end();
              if (rest) stdout.write(rest);
              if (lineOpen) stdout.write('\n');
              lineOpen = false;
            },
            toolStart: (call) => live.start(call.id, call.name),
            toolProgress: (id, progress) => live.progress(id, progress),
            toolCall: (record) => {
              // One final line per call; a call longer than a moment says how long (and its last progress).
              const took = live.end(record.id);
              stdout.write(`${describeToolCall(record)}${took === undefined ? '' : ` (${took})`}\n`);
            },
            notice: (message) => stdout.write(`furfly: ${attributedBlock(message)}\n`),
            error: (message) => stdout.write(`furfly: error: ${attributedBlock(message)}\n`),
          },
        });
        // Raced below: if the output goes first, a later failure of the abandoned turn is nobody's news.
        running.catch(() => {});
        // With the output gone the answer has nowhere to go: do not wait for the aborted turn to
        // wind down (a stream already read to its end may never settle), just shut down and leave.
        const result = await Promise.race([running, output.gone]);
        if (result === undefined || output.signal.aborted) break;
        runtime.ledger.record({ prompt: text, requests: result.iterations, usage: result.usage });
      } catch (error) {
        if (output.signal.aborted) break;
        // A bug must not end the session: one line, and the history stays valid for the next turn.
        if (lineOpen) stdout.write('\n');
        stdout.write(`furfly: internal error, the turn was stopped: ${oneLine(error)}\n`);
        runtime.agent.answerOpenToolCalls('Not run: furfly stopped the turn after an internal error.');
      } finally {
        live.dispose();
        busy = false;
        turn = undefined;
      }
      if (quitRequested) break;
    }
  } finally {
    unsubscribe?.();
    if (!output.signal.aborted) stdout.write('furfly: shutting down MCP servers… bye.\n');
    closeInput();
    await runtime.close();
    output.dispose();
  }
  return output.exitCode() ?? 0;
}

/** The session's own stdin behind a PasteInput, still a terminal to readline (raw mode, key handling). */
function terminalPasteInput(stdin: Readable): PasteInput {
  const paste = new PasteInput();
  const tty = stdin as Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  Object.assign(paste, {
    isTTY: true,
    setRawMode: (mode: boolean) => {
      tty.setRawMode?.(mode);
      return paste;
    },
  });
  stdin.pipe(paste);
  return paste;
}

export function formatSize(chars: number): string {
  if (chars < 1000) return `${chars} characters`;
  if (chars < 1_000_000) return `${(chars / 1000).toFixed(0)} KB`;
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

function oneLine(error: unknown): string {
  return terminalLine(errorText(error).split('\n')[0]!.slice(0, 300));
}
