/**
 * A server's questions in the interactive session: an elicitation form asked field by field, a URL to
 * open, and a request to use the model. Everything a server wrote (its message, titles, descriptions,
 * the URL, the messages for the model) passes the terminal-safety boundary before it is shown.
 *
 * The same rule as permission questions holds: on a terminal only what is typed after a question
 * answers it (typed-ahead lines are discarded, with a note); piped input is a script and answers in
 * order. One question at a time: a second server's question waits for the first to be answered.
 *
 * A form: each field shows its title, type, bounds, options and default; Enter keeps the default (or
 * skips an optional field); `/decline` or `/cancel` at any field ends the form with that action. Each
 * answer is checked at once (a wrong one is asked again with the reason), and the whole is checked
 * again before the summary, which asks to accept, edit, decline or cancel.
 */
import { spawn } from 'node:child_process';
import type {
  SamplingApproval,
  SamplingPrompter,
  SamplingQuestion,
  SamplingReply,
} from '../../agent/sampling.js';
import type { ServerRequestPrompter } from '../../agent/server-requests.js';
import type {
  ElicitAction,
  ElicitationPrompter,
  FormAnswer,
  FormQuestion,
  UrlQuestion,
} from '../../mcp/server-requests/elicitation.js';
import {
  completeContent,
  defaultOf,
  type FormField,
  type FormValue,
  parseAnswer,
} from '../../mcp/server-requests/elicitation-schema.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';

export interface QuestionIo {
  write(text: string): void;
  /** The next line typed (undefined at the end of input). */
  nextLine(signal: AbortSignal | undefined): Promise<string | undefined>;
  /** Throws away lines typed before the question (on a terminal); returns how many. */
  discardTypedAhead(): number;
  /** Opens a URL after the person agreed; resolves false when it could not be opened. */
  openUrl?(url: string): Promise<boolean>;
}

class EndOfInput extends Error {}

export function createServerQuestionPrompter(io: QuestionIo): ServerRequestPrompter {
  let queue: Promise<unknown> = Promise.resolve();
  /** One question at a time, in the order they arrived. */
  const serially = <T>(ask: () => Promise<T>): Promise<T> => {
    const next = queue.then(ask, ask);
    queue = next.catch(() => {});
    return next;
  };
  const begin = () => {
    const dropped = io.discardTypedAhead();
    if (dropped > 0)
      io.write(
        `(${dropped} line${dropped === 1 ? '' : 's'} typed ahead discarded: a question takes only what you type after it)\n`,
      );
  };
  const read = async (signal: AbortSignal | undefined) => {
    const line = await io.nextLine(signal);
    if (line === undefined) throw new EndOfInput();
    return line;
  };

  const elicitation: ElicitationPrompter = {
    form: (question, signal) =>
      serially(async () => {
        begin();
        try {
          return await askForm(question, io, () => read(signal));
        } catch (error) {
          if (error instanceof EndOfInput) {
            io.write('\n(no answer: the end of input cancels the form)\n');
            return { action: 'cancel' };
          }
          throw error;
        }
      }),
    url: (question, signal) =>
      serially(async () => {
        begin();
        try {
          return await askUrl(question, io, () => read(signal));
        } catch (error) {
          if (error instanceof EndOfInput) return 'cancel';
          throw error;
        }
      }),
  };

  const sampling: SamplingPrompter = {
    approve: (question, signal) =>
      serially(async () => {
        begin();
        try {
          return await askSampling(question, io, () => read(signal));
        } catch (error) {
          if (error instanceof EndOfInput) return 'deny';
          throw error;
        }
      }),
    showReply: (reply) => io.write(describeSamplingReply(reply)),
  };
  return { elicitation, sampling };
}

function header(what: string, server: string, about: string | undefined): string {
  return `── server "${terminalLine(server)}" ${what}${about !== undefined ? ` (for ${terminalLine(about)})` : ''} ──\n`;
}

/** Indents a server's text, made safe, under a header. */
function quoted(text: string, indent = '  '): string {
  return `${terminalText(text)
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n')}\n`;
}

async function askForm(
  question: FormQuestion,
  io: QuestionIo,
  read: () => Promise<string>,
): Promise<FormAnswer> {
  io.write(header('asks for input', question.server, question.about));
  if (question.message) io.write(quoted(question.message));
  io.write('  (* required; Enter keeps the [default] or skips; /decline or /cancel at any field)\n');
  for (;;) {
    const answers: Record<string, FormValue | undefined> = {};
    for (const field of question.fields) {
      io.write(describeField(field));
      for (;;) {
        io.write('  > ');
        const line = await read();
        const command = line.trim().toLowerCase();
        if (command === '/decline' || command === '/cancel')
          return { action: command === '/decline' ? 'decline' : 'cancel' };
        const parsed = parseAnswer(field, line);
        if (parsed.ok) {
          answers[field.key] = parsed.value;
          break;
        }
        io.write(`  ${terminalLine(parsed.problem)}; try again\n`);
      }
    }
    const completed = completeContent(question.fields, answers);
    if (!completed.ok) {
      io.write(`  The form is not complete: ${terminalLine(completed.problems.join('; '))}\n`);
      continue;
    }
    io.write('  You are sending:\n');
    for (const field of question.fields) {
      const value = completed.content[field.key];
      io.write(
        `    ${terminalLine(field.title)}: ${value === undefined ? '(none)' : terminalLine(formatValue(field, value))}\n`,
      );
    }
    for (;;) {
      io.write(
        `Send this to server "${terminalLine(question.server)}"? [a]ccept, [e]dit, [d]ecline, [c]ancel\n? `,
      );
      const answer = (await read()).trim().toLowerCase();
      if (answer === 'a' || answer === 'accept' || answer === 'y') return { action: 'accept', answers };
      if (answer === 'd' || answer === 'decline' || answer === 'n') return { action: 'decline' };
      if (answer === 'c' || answer === 'cancel') return { action: 'cancel' };
      if (answer === 'e' || answer === 'edit') break;
      io.write('Please answer a, e, d or c.\n');
    }
  }
}

/** One field's line: title, required mark, what it takes, and its default. */
function describeField(field: FormField): string {
  const lines: string[] = [];
  let what: string;
  switch (field.kind) {
    case 'string':
      what =
        [field.format, bounds(field.minLength, field.maxLength, 'characters')].filter(Boolean).join(', ') ||
        'text';
      break;
    case 'number':
    case 'integer':
      what = [field.kind === 'integer' ? 'whole number' : 'number', bounds(field.minimum, field.maximum, '')]
        .filter(Boolean)
        .join(' ');
      break;
    case 'boolean':
      what = 'y/n';
      break;
    case 'enum':
      what = 'pick one by number';
      break;
    case 'multi':
      what = `pick any by number, comma-separated, - for none${bounds(field.minItems, field.maxItems, 'picks') ? `; ${bounds(field.minItems, field.maxItems, 'picks')}` : ''}`;
      break;
  }
  const def = defaultOf(field);
  lines.push(
    `${terminalLine(field.title)}${field.required ? ' *' : ''} (${what})${def === undefined ? '' : ` [${terminalLine(formatValue(field, def))}]`}`,
  );
  if (field.description) lines.push(`  ${terminalLine(field.description)}`);
  if (field.kind === 'enum' || field.kind === 'multi') {
    field.options.forEach((option, i) => {
      lines.push(
        `  ${i + 1}) ${terminalLine(option.title)}${option.title !== option.value ? ` (${terminalLine(option.value)})` : ''}`,
      );
    });
  }
  return `${lines.join('\n')}\n`;
}

function bounds(min: number | undefined, max: number | undefined, unit: string): string {
  const suffix = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return `${min}..${max}${suffix}`;
  if (min !== undefined) return `at least ${min}${suffix}`;
  if (max !== undefined) return `at most ${max}${suffix}`;
  return '';
}

function formatValue(field: FormField, value: FormValue): string {
  const title = (v: string) =>
    field.kind === 'enum' || field.kind === 'multi'
      ? (field.options.find((o) => o.value === v)?.title ?? v)
      : v;
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map(title).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return title(String(value));
}

async function askUrl(
  question: UrlQuestion,
  io: QuestionIo,
  read: () => Promise<string>,
): Promise<ElicitAction> {
  io.write(header('asks you to open a link', question.server, question.about));
  if (question.message) io.write(quoted(question.message));
  // The host on its own line (IDN shown as punycode by URL): what the link really points at.
  io.write(`  URL:  ${terminalLine(question.url.href)}\n  host: ${terminalLine(question.url.host)}\n`);
  for (;;) {
    io.write('Open it in your browser? [o]pen, [d]ecline, [c]ancel\n? ');
    const answer = (await read()).trim().toLowerCase();
    if (answer === 'o' || answer === 'open' || answer === 'y') {
      const opened = (await io.openUrl?.(question.url.href)) ?? false;
      io.write(
        opened ? '  Opened in your browser.\n' : '  Could not open a browser: open the URL above yourself.\n',
      );
      return 'accept';
    }
    if (answer === 'd' || answer === 'decline' || answer === 'n') return 'decline';
    if (answer === 'c' || answer === 'cancel') return 'cancel';
    io.write('Please answer o, d or c.\n');
  }
}

async function askSampling(
  question: SamplingQuestion,
  io: QuestionIo,
  read: () => Promise<string>,
): Promise<SamplingApproval> {
  io.write(header('asks to use the model', question.server, question.about));
  const hints =
    question.modelHints.length > 0
      ? ` (the server would like: ${terminalLine(question.modelHints.join(', '))})`
      : '';
  io.write(`  model: ${terminalLine(question.model)}${hints}\n`);
  if (question.maxTokens !== undefined) io.write(`  max tokens asked for: ${question.maxTokens}\n`);
  if (question.systemPrompt) io.write(`  system prompt:\n${quoted(question.systemPrompt, '    ')}`);
  for (const message of question.messages) io.write(`  ${message.role}:\n${quoted(message.text, '    ')}`);
  if (question.tools.length > 0)
    io.write(`  tools offered to the model: ${terminalLine(question.tools.join(', '))}\n`);
  for (;;) {
    io.write('Send this to the model? [a]llow once, allow this server for the [s]ession, [d]eny\n? ');
    const answer = (await read()).trim().toLowerCase();
    if (answer === 'a' || answer === 'once' || answer === 'y') return 'once';
    if (answer === 's' || answer === 'session') return 'session';
    if (answer === 'd' || answer === 'deny' || answer === 'n') return 'deny';
    io.write('Please answer a, s or d.\n');
  }
}

function describeSamplingReply(reply: SamplingReply): string {
  const head = `── the model's reply to server "${terminalLine(reply.server)}" (${terminalLine(reply.model)}, ${terminalLine(reply.stopReason)}) ──\n`;
  const tools =
    reply.toolUses.length > 0 ? `  asks the server to run: ${terminalLine(reply.toolUses.join(', '))}\n` : '';
  return `${head}${reply.text ? quoted(reply.text) : ''}${tools}`;
}

/**
 * Opens a URL in the person's browser: `$BROWSER` when set (the usual convention), else the platform's
 * opener; never through a shell, the URL one argument.
 */
export function openInBrowser(
  env: Readonly<Record<string, string | undefined>>,
): (url: string) => Promise<boolean> {
  return (url) =>
    new Promise((resolve) => {
      const browser = env.BROWSER;
      const [command, args] =
        browser !== undefined && browser !== ''
          ? [browser, [url]]
          : process.platform === 'darwin'
            ? ['open', [url]]
            : process.platform === 'win32'
              ? ['explorer.exe', [url]]
              : ['xdg-open', [url]];
      try {
        const child = spawn(command, args, { stdio: 'ignore', detached: true });
        child.once('error', () => resolve(false));
        child.once('spawn', () => {
          child.unref();
          resolve(true);
        });
      } catch {
        resolve(false);
      }
    });
}
