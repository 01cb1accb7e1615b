/** What the agent loop needs from a model provider: one streamed request at a time. */
import type { ToolDefinition } from '../../tools/index.js';
import type { AssistantBlock, ChatMessage } from '../messages.js';
import type { Usage } from '../usage.js';

export interface ModelRequest {
  /** The fixed instructions (the same for every request of a session). */
  system: string;
  /** Session context: working directory, platform, date, FURFLY.md files. */
  context: string;
  /** In registry order; the adapter must keep it (prompt caching keys on the exact list). */
  tools: readonly ToolDefinition[];
  messages: readonly ChatMessage[];
}

export interface ModelResponse {
  content: AssistantBlock[];
  /** The provider's stop reason, e.g. `end_turn`, `tool_use`, `max_tokens`. */
  stopReason: string;
  usage: Usage;
}

export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  /**
   * Streams one response; `onText` receives text as it arrives. Rejects with a `ProviderError` (a
   * message fit to show a person) on API and stream errors, and with `AbortError` when `signal` fires.
   */
  complete(
    request: ModelRequest,
    options: { signal: AbortSignal; onText: (text: string) => void },
  ): Promise<ModelResponse>;
}

/** An API or stream failure, already worded for the user (no stack, no secrets). */
export class ProviderError extends Error {
  /** What the failed request used before it failed (the API bills it), when the stream had started. */
  usage?: Usage;

  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export class AbortError extends Error {
  /** What the cancelled request used before it was aborted. */
  usage?: Usage;

  constructor() {
    super('cancelled');
    this.name = 'AbortError';
  }
}
