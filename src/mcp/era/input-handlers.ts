/**
 * Multi round-trip requests (basic/patterns/mrtr): what the client does with an `input_required` result.
 * The server embeds the requests it would once have sent itself (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`); handlers registered on the client answer them, and the client
 * retries the original request with `inputResponses` and the server's `requestState`.
 */

/** Answers the embedded requests of one kind. Each receives the request's `params` and returns its result. */
export interface InputHandlers {
  /** `elicitation/create`: ask the user; returns an `ElicitResult` (`{action, content?}`). */
  elicitation?: (params: Record<string, unknown>, context: InputContext) => Promise<Record<string, unknown>>;
  /** `sampling/createMessage`: ask a model; returns a `CreateMessageResult`. */
  sampling?: (params: Record<string, unknown>, context: InputContext) => Promise<Record<string, unknown>>;
  /** `roots/list`: the client's roots; returns a `ListRootsResult` (`{roots: [...]}`). */
  roots?: (params: Record<string, unknown>, context: InputContext) => Promise<Record<string, unknown>>;
}

/** What a handler knows about the request it answers for. */
export interface InputContext {
  readonly server: string;
  /** The original request, e.g. `tools/call`, and the tool, prompt or resource it names. */
  readonly method: string;
  readonly name: string | undefined;
  readonly signal: AbortSignal | undefined;
}

const HANDLER_OF: Record<string, keyof InputHandlers> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Default cap on rounds of one request: a server that keeps asking is stopped here. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

/**
 * The client capabilities the handlers declare: a server MUST NOT ask for a kind of input the client has
 * not declared (mrtr, server requirements), so a client without a handler never declares it.
 */
export function capabilitiesOf(handlers: InputHandlers): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (handlers.elicitation) capabilities.elicitation = { form: {} };
  if (handlers.sampling) capabilities.sampling = {};
  if (handlers.roots) capabilities.roots = {};
  return capabilities;
}

/** An `input_required` result could not be answered; the message names the server and the request. */
export class InputRequiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputRequiredError';
  }
}

export interface InputRequiredResultShape {
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

/**
 * Answers every entry of `inputRequests` with its handler. An entry of a kind without a handler, or of an
 * unknown kind, fails the whole round: the client declared no such capability, so the server broke the
 * rule, and no answer furfly could invent would be the user's.
 */
export async function answerInputRequests(
  requests: Record<string, unknown>,
  handlers: InputHandlers,
  context: InputContext,
): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    const method =
      typeof request === 'object' && request !== null ? (request as { method?: unknown }).method : undefined;
    const kind = typeof method === 'string' ? HANDLER_OF[method] : undefined;
    const handler = kind === undefined ? undefined : handlers[kind];
    if (handler === undefined) {
      const what = typeof method === 'string' ? `"${method}"` : 'a request without a method';
      throw new InputRequiredError(
        `the server asked for ${what} (input "${key}"), which furfly does not handle here` +
          (kind === undefined ? '' : ` and did not declare (no ${kind} handler)`),
      );
    }
    const params = (request as { params?: unknown }).params;
    responses[key] = await handler(
      typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {},
      context,
    );
  }
  return responses;
}
