/**
 * How the one-shot `furfly mcp` commands (`call`, and `read`, `prompt`, … which talk to a server the same
 * way) answer a server that asks the user for input (elicitation, in both eras: a 2025 server's
 * `elicitation/create` request, a 2026-07-28 server's `input_required` entry):
 *
 * - `--elicit accept-defaults|decline|cancel`: the answer is fixed in advance, for scripts.
 *   `accept-defaults` accepts a form with the defaults the server's schema gives (SEP-1034); a form with
 *   a required field that has no default cannot be accepted that way and is declined, with a notice.
 *   A URL (elicitation URL mode) needs a person: it is declined unless the answer is `cancel`.
 * - without it, when stdin is a terminal: the interactive agent's form (cli/interactive/elicitation-form.ts),
 *   asked on stderr (stdout carries the result), answered on stdin.
 * - otherwise: nobody can answer, so no elicitation capability is declared (a server MUST NOT ask then),
 *   and a question that arrives anyway is declined with a notice.
 *
 * The capability declared follows what can be answered: form mode whenever a form can be answered, URL
 * mode only on a terminal (where a person can open the link).
 */
import { createInterface } from 'node:readline';
import type { InputHandlers } from '../../mcp/era/input-handlers.js';
import { clientCapabilitiesFor } from '../../mcp/server-requests/capabilities.js';
import {
  describeAsker,
  type ElicitationPrompter,
  elicitationHandler,
} from '../../mcp/server-requests/elicitation.js';
import { completeContent } from '../../mcp/server-requests/elicitation-schema.js';
import { createServerQuestionPrompter, openInBrowser } from '../interactive/elicitation-form.js';
import { LineQueue } from '../interactive/line-queue.js';

export const ELICIT_ANSWERS = ['accept-defaults', 'decline', 'cancel'] as const;
export type ElicitAnswer = (typeof ELICIT_ANSWERS)[number];

export class ElicitUsageError extends Error {}

/** `--elicit <answer>`; undefined when not given. Throws ElicitUsageError for anything else. */
export function parseElicitAnswer(value: unknown): ElicitAnswer | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (ELICIT_ANSWERS as readonly string[]).includes(value))
    return value as ElicitAnswer;
  throw new ElicitUsageError(`--elicit must be one of ${ELICIT_ANSWERS.join(', ')}`);
}

/** A prompter that gives the same answer to every question, for `--elicit`. */
export function fixedAnswerPrompter(
  answer: ElicitAnswer,
  notice: (text: string) => void,
): ElicitationPrompter {
  return {
    form: async (question) => {
      if (answer !== 'accept-defaults') return { action: answer };
      // The server's defaults, checked as any answer is: a required field without one cannot be filled.
      const completed = completeContent(question.fields, {});
      if (!completed.ok) {
        notice(
          `server "${question.server}" asked for input; declined: --elicit accept-defaults cannot fill it (${completed.problems.join('; ')})`,
        );
        return { action: 'decline' };
      }
      return { action: 'accept', answers: {} };
    },
    url: async (question) => {
      if (answer === 'cancel') return 'cancel';
      notice(
        `server "${question.server}" asked to open a URL; declined: that needs a person (--elicit ${answer})`,
      );
      return 'decline';
    },
  };
}

export interface OneShotElicitationOptions {
  readonly answer: ElicitAnswer | undefined;
  /** stdin is a terminal: a person can answer a form there. */
  readonly stdinIsTerminal: boolean;
  readonly stdin?: NodeJS.ReadableStream;
  /** Where the form is shown (stderr: stdout holds the command's result). */
  readonly write: (text: string) => void;
  /** One line about a question that was answered without the person; already safe to print. */
  readonly notice: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface OneShotElicitation {
  readonly inputHandlers: InputHandlers;
  readonly capabilitiesFor: (version: string) => Record<string, unknown>;
  /** Stops reading stdin (the command is over). */
  close(): void;
}

export function oneShotElicitation(options: OneShotElicitationOptions): OneShotElicitation {
  const { answer } = options;
  let close = () => {};
  let prompter: ElicitationPrompter | undefined;
  let url = false;
  if (answer !== undefined) {
    prompter = fixedAnswerPrompter(answer, options.notice);
  } else if (options.stdinIsTerminal && options.stdin !== undefined) {
    const terminal = terminalLines(options.stdin);
    close = terminal.close;
    prompter = createServerQuestionPrompter({
      write: options.write,
      nextLine: (signal) => terminal.next(signal),
      discardTypedAhead: () => terminal.discard(),
      openUrl: openInBrowser(options.env),
    }).elicitation;
    url = true;
  }
  const notice = options.notice;
  const handler = elicitationHandler({ prompter, notice });
  return {
    inputHandlers: {
      elicitation:
        prompter === undefined
          ? async (_params, context) => {
              notice(
                `${describeAsker(context)} asked for input; declined: stdin is not a terminal (answer with --elicit accept-defaults|decline|cancel)`,
              );
              return { action: 'decline' };
            }
          : handler,
    },
    capabilitiesFor: (version) =>
      clientCapabilitiesFor(version, prompter === undefined ? {} : { elicitation: { form: true, url } }),
    close,
  };
}

/** Lines typed on stdin, read only once a question waits for one (stdin is not touched before). */
function terminalLines(stdin: NodeJS.ReadableStream): {
  next(signal: AbortSignal | undefined): Promise<string | undefined>;
  discard(): number;
  close(): void;
} {
  let queue: LineQueue | undefined;
  let rl: ReturnType<typeof createInterface> | undefined;
  const start = () => {
    if (queue !== undefined) return queue;
    const lines = new LineQueue();
    rl = createInterface({ input: stdin, terminal: false });
    rl.on('line', (line) => lines.push(line));
    rl.on('close', () => lines.end());
    queue = lines;
    return lines;
  };
  return {
    next: (signal) => start().next(signal),
    discard: () => start().discard(),
    close: () => rl?.close(),
  };
}
