/**
 * `elicitation/create`, whichever way it arrives (a 2025 server's request or a 2026-07-28
 * `input_required` entry): form mode is read into fields and handed to a prompter, whose answers are
 * completed with the server's defaults and checked before anything is sent; URL mode is handed over
 * only for http(s) URLs. Without a prompter (one-shot mode) nobody can answer: the request is declined
 * and a notice says so.
 */
import type { InputContext, InputHandlers } from '../era/input-handlers.js';
import {
  completeContent,
  type FormField,
  type FormValue,
  readRequestedSchema,
} from './elicitation-schema.js';

export type ElicitAction = 'accept' | 'decline' | 'cancel';

/** What the person is shown for a form: who asks, for which call, the server's message and the fields. */
export interface FormQuestion {
  readonly server: string;
  /** The tool (or prompt, resource) whose call the question belongs to, when known. */
  readonly about: string | undefined;
  readonly message: string;
  readonly fields: readonly FormField[];
}

export interface UrlQuestion {
  readonly server: string;
  readonly about: string | undefined;
  readonly message: string;
  /** Parsed and limited to http(s); the prompter shows it (sanitized) and opens it only after a yes. */
  readonly url: URL;
  readonly elicitationId: string | undefined;
}

export type FormAnswer =
  | { action: 'accept'; answers: Record<string, FormValue | undefined> }
  | { action: 'decline' | 'cancel' };

/** The person's side: the interactive session implements it; one-shot mode has none. */
export interface ElicitationPrompter {
  /** Asks every field; returns only answers that `completeContent` accepts (it may call it to check). */
  form(question: FormQuestion, signal: AbortSignal | undefined): Promise<FormAnswer>;
  /** Shows the URL; on accept it has been opened (or the person was told how to open it). */
  url(question: UrlQuestion, signal: AbortSignal | undefined): Promise<ElicitAction>;
}

export interface ElicitationHandlerOptions {
  prompter: ElicitationPrompter | undefined;
  /** Lines for the person (and, in one-shot mode, the output): what was declined and why. */
  notice?: (text: string) => void;
}

type Handler = NonNullable<InputHandlers['elicitation']>;

export function elicitationHandler(options: ElicitationHandlerOptions): Handler {
  const { prompter } = options;
  const notice = options.notice ?? (() => {});
  return async (params, context) => {
    const who = describeAsker(context);
    const mode = params.mode === 'url' ? 'url' : 'form';
    if (prompter === undefined) {
      notice(`${who} asked for input (${mode} mode); declined: nobody can answer in one-shot mode (-p)`);
      return { action: 'decline' };
    }
    const message = typeof params.message === 'string' ? params.message : '';
    const about = context.name;
    if (mode === 'url') {
      const url = httpUrl(params.url);
      if (url === undefined) {
        notice(`${who} asked to open a URL that is not http(s); declined`);
        return { action: 'decline' };
      }
      const elicitationId = typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
      const action = await prompter.url(
        { server: context.server, about, message, url, elicitationId },
        context.signal,
      );
      return { action };
    }
    const reading = readRequestedSchema(params.requestedSchema);
    if (!reading.ok) {
      notice(`${who} sent a form furfly cannot show (${reading.reason}); declined`);
      return { action: 'decline' };
    }
    const answer = await prompter.form(
      { server: context.server, about, message, fields: reading.fields },
      context.signal,
    );
    if (answer.action !== 'accept') return { action: answer.action };
    // Checked here again, whatever the prompter did: nothing invalid leaves furfly.
    const completed = completeContent(reading.fields, answer.answers);
    if (!completed.ok)
      throw new Error(`the form's answers do not fit its schema: ${completed.problems.join('; ')}`);
    return { action: 'accept', content: completed.content };
  };
}

/** `server "x"` plus the call the question belongs to, for notices. */
export function describeAsker(context: InputContext): string {
  return `server "${context.server}"${context.name !== undefined ? ` (${context.method} ${context.name})` : ''}`;
}

function httpUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}
