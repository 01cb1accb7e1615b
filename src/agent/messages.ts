/**
 * The conversation in a provider-neutral shape. It mirrors the Anthropic Messages API closely (the
 * only protocol furfly speaks), so the adapter's mapping stays trivial, but the loop never imports
 * the SDK and a test can read a conversation without knowing it.
 */
import type { ContentPart } from '../tools/index.js';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** Parsed JSON arguments, or the raw string when the model sent JSON that does not parse. */
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  is_error: boolean;
  content: ContentPart[];
}

/** An image the user attached (an MCP resource's blob); the provider adapter decides whether it can take it. */
export interface ImageBlock {
  type: 'image';
  data: string;
  mimeType: string;
}

export type UserBlock = TextBlock | ToolResultBlock | ImageBlock;
export type AssistantBlock = TextBlock | ToolUseBlock;

export type ChatMessage =
  | { role: 'user'; content: UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] };

/**
 * Appends user content. Two user messages in a row (a turn that ended with tool results, or was
 * interrupted before the model answered) are merged into one, so roles always alternate.
 */
export function appendUserContent(messages: ChatMessage[], blocks: UserBlock[]): void {
  const last = messages.at(-1);
  if (last?.role === 'user') last.content.push(...blocks);
  else messages.push({ role: 'user', content: blocks });
}
