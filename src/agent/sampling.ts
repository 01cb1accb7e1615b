/**
 * `sampling/createMessage`: a server asks to use the session's model. Whichever era it arrives in (a 2025
 * server's request, or a 2026-07-28 `input_required` entry), it is answered here:
 *
 * 1. The server's `sampling` policy (config): `deny` refuses at once; `allow` needs no question; `ask`
 *    (the default) asks the person: once, for the rest of the session (remembered per server), or no.
 *    Without a person (one-shot mode) `ask` is a refusal, and a notice says so.
 * 2. The server's messages (text, tool use and tool results; images and audio become a line saying they
 *    were left out), its system prompt and its tools go to the provider; nothing of the session (no
 *    history, no FURFLY.md, no furfly tools) goes with them, so `includeContext` is not declared.
 * 3. The reply is redacted, shown to the person, and returned; a `tool_use` in it is returned as such
 *    (`stopReason: toolUse`): the server runs its own tools and asks again (client/sampling, tools).
 *
 * A refusal is JSON-RPC error -1 for a 2025 server (client/sampling, Error Handling) and a failed request
 * for a 2026-07-28 one, whose server is not waiting for an answer.
 */
import type { InputContext, InputHandlers } from '../mcp/era/input-handlers.js';
import { ServerRequestRefused, USER_REJECTED } from '../mcp/server-requests/legacy-requests.js';
import type { Redactor } from '../redaction/index.js';
import type { ContentPart, JsonSchemaObject, ToolDefinition } from '../tools/index.js';
import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import type { AssistantBlock, ChatMessage, UserBlock } from './messages.js';
import type { ModelProvider } from './provider/types.js';

export type SamplingPolicy = 'ask' | 'allow' | 'deny';
export type SamplingApproval = 'once' | 'session' | 'deny';

/** What the person sees before approving: every part of the request that reaches the model. */
export interface SamplingQuestion {
  readonly server: string;
  readonly about: string | undefined;
  readonly systemPrompt: string | undefined;
  /** Role and text of each message, as sent (after the conversion below). */
  readonly messages: readonly { role: 'user' | 'assistant'; text: string }[];
  readonly modelHints: readonly string[];
  readonly maxTokens: number | undefined;
  readonly tools: readonly string[];
  /** The model the request will go to. */
  readonly model: string;
}

export interface SamplingReply {
  readonly server: string;
  readonly model: string;
  readonly text: string;
  readonly toolUses: readonly string[];
  readonly stopReason: string;
}

export interface SamplingPrompter {
  approve(question: SamplingQuestion, signal: AbortSignal | undefined): Promise<SamplingApproval>;
  showReply(reply: SamplingReply): void;
}

export interface SamplingHandlerOptions {
  server: string;
  policy: SamplingPolicy;
  provider: ModelProvider;
  redactor: Redactor;
  /** Absent in one-shot mode. */
  prompter: SamplingPrompter | undefined;
  /** Servers approved for the session (shared by every server's handler). */
  approvedForSession: Set<string>;
  notice?: (text: string) => void;
}

type Handler = NonNullable<InputHandlers['sampling']>;

export function samplingHandler(options: SamplingHandlerOptions): Handler {
  const notice = options.notice ?? (() => {});
  return async (params, context) => {
    const who = `server "${context.server}"${context.name !== undefined ? ` (${context.method} ${context.name})` : ''}`;
    const refuse = (why: string): never => {
      notice(`${who} asked to use the model; denied: ${why}`);
      throw new ServerRequestRefused(
        `the user's client denied the request to use the model: ${why}`,
        USER_REJECTED,
      );
    };
    if (options.policy === 'deny') refuse("this server's config says sampling: deny");
    const converted = toModelMessages(params.messages);
    if (typeof converted === 'string')
      throw new ServerRequestRefused(`invalid sampling request: ${converted}`, -32602);
    const tools = toToolDefinitions(params.tools);
    const question: SamplingQuestion = {
      server: context.server,
      about: context.name,
      systemPrompt:
        typeof params.systemPrompt === 'string' ? options.redactor.text(params.systemPrompt) : undefined,
      messages: converted.shown.map((m) => ({ role: m.role, text: options.redactor.text(m.text) })),
      modelHints: modelHints(params.modelPreferences),
      maxTokens: typeof params.maxTokens === 'number' ? params.maxTokens : undefined,
      tools: tools.map((t) => t.name),
      model: options.provider.model,
    };
    if (options.policy === 'ask' && !options.approvedForSession.has(context.server)) {
      if (options.prompter === undefined) {
        refuse('nobody can approve it in one-shot mode (-p); set sampling: allow on the server to permit it');
      } else {
        const answer = await options.prompter.approve(question, context.signal);
        if (answer === 'deny') refuse('the user said no');
        if (answer === 'session') options.approvedForSession.add(context.server);
      }
    }
    const reply = await complete(options, params, converted.messages, tools, context);
    options.prompter?.showReply({
      server: context.server,
      model: options.provider.model,
      text: reply.text,
      toolUses: reply.toolUses,
      stopReason: reply.stopReason,
    });
    return reply.result;
  };
}

async function complete(
  options: SamplingHandlerOptions,
  params: Record<string, unknown>,
  messages: ChatMessage[],
  tools: ToolDefinition[],
  context: InputContext,
) {
  const signal = context.signal ?? new AbortController().signal;
  let response: Awaited<ReturnType<ModelProvider['complete']>>;
  try {
    response = await options.provider.complete(
      {
        system: typeof params.systemPrompt === 'string' ? params.systemPrompt : '',
        context: '',
        // A tool choice of `none` means the model may not call any: it is then not offered them.
        tools: isObject(params.toolChoice) && params.toolChoice.mode === 'none' ? [] : tools,
        messages,
      },
      { signal, onText: () => {} },
    );
  } catch (error) {
    throw new Error(`the model request failed: ${options.redactor.text(errorText(error))}`);
  }
  const blocks: Record<string, unknown>[] = [];
  const texts: string[] = [];
  const toolUses: string[] = [];
  for (const block of response.content) {
    if (block.type === 'text') {
      const text = options.redactor.text(block.text);
      texts.push(text);
      blocks.push({ type: 'text', text });
    } else {
      toolUses.push(block.name);
      blocks.push({
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: isObject(block.input) ? block.input : {},
      });
    }
  }
  const stopReason = STOP_REASONS[response.stopReason] ?? response.stopReason;
  // A single text block is valid in every version; a list only from 2025-11-25, which tool use needs anyway.
  const content = toolUses.length === 0 ? { type: 'text', text: texts.join('') } : blocks;
  return {
    text: texts.join(''),
    toolUses,
    stopReason,
    result: { role: 'assistant', content, model: options.provider.model, stopReason } as Record<
      string,
      unknown
    >,
  };
}

const STOP_REASONS: Record<string, string> = {
  end_turn: 'endTurn',
  max_tokens: 'maxTokens',
  stop_sequence: 'stopSequence',
  tool_use: 'toolUse',
};

function modelHints(preferences: unknown): string[] {
  if (!isObject(preferences) || !Array.isArray(preferences.hints)) return [];
  return preferences.hints.flatMap((hint) =>
    isObject(hint) && typeof hint.name === 'string' ? [hint.name] : [],
  );
}

function toToolDefinitions(tools: unknown): ToolDefinition[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) =>
    isObject(tool) && typeof tool.name === 'string' && isObject(tool.inputSchema)
      ? [
          {
            name: tool.name,
            description: typeof tool.description === 'string' ? tool.description : '',
            inputSchema: tool.inputSchema as JsonSchemaObject,
            hardConstraints: ['Defined by an external MCP server for its own sampling request.'],
          },
        ]
      : [],
  );
}

/**
 * The server's `SamplingMessage`s as the provider's messages, plus a text view of each for the person.
 * Returns a problem (a string) for what the spec forbids: a tool result mixed with other content, a
 * tool result answering no tool use.
 */
export function toModelMessages(
  messages: unknown,
): { messages: ChatMessage[]; shown: { role: 'user' | 'assistant'; text: string }[] } | string {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty list';
  const out: ChatMessage[] = [];
  const shown: { role: 'user' | 'assistant'; text: string }[] = [];
  const toolUseIds = new Set<string>();
  for (const message of messages) {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
      return 'a message without role user or assistant';
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const role = message.role;
    const user: UserBlock[] = [];
    const assistant: AssistantBlock[] = [];
    const lines: string[] = [];
    for (const block of blocks) {
      if (!isObject(block)) return 'a content block that is not an object';
      if (block.type === 'text' && typeof block.text === 'string') {
        (role === 'user' ? user : assistant).push({ type: 'text', text: block.text });
        lines.push(block.text);
      } else if (
        block.type === 'tool_use' &&
        role === 'assistant' &&
        typeof block.id === 'string' &&
        typeof block.name === 'string'
      ) {
        toolUseIds.add(block.id);
        assistant.push({
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: isObject(block.input) ? block.input : {},
        });
        lines.push(`[tool use ${block.name}]`);
      } else if (block.type === 'tool_result' && role === 'user' && typeof block.toolUseId === 'string') {
        if (!toolUseIds.has(block.toolUseId))
          return `a tool result for ${block.toolUseId}, which no tool use asked for`;
        const parts: ContentPart[] = (Array.isArray(block.content) ? block.content : []).flatMap((c) =>
          isObject(c) && c.type === 'text' && typeof c.text === 'string'
            ? [{ type: 'text' as const, text: c.text }]
            : [],
        );
        user.push({
          type: 'tool_result',
          tool_use_id: block.toolUseId,
          is_error: block.isError === true,
          content: parts,
        });
        lines.push(`[tool result: ${parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ')}]`);
      } else {
        const kind = typeof block.type === 'string' ? block.type : 'unknown';
        const line = `[${kind} content left out: furfly passes text and tool use only]`;
        (role === 'user' ? user : assistant).push({ type: 'text', text: line });
        lines.push(line);
      }
    }
    if (user.some((b) => b.type === 'tool_result') && user.some((b) => b.type !== 'tool_result'))
      return 'tool results mixed with other content in one message';
    const chat: ChatMessage = role === 'user' ? { role, content: user } : { role, content: assistant };
    // Roles alternate for the provider: a second message of the same role joins the first.
    const last = out.at(-1);
    if (last?.role === chat.role) (last.content as unknown[]).push(...chat.content);
    else out.push(chat);
    shown.push({ role, text: lines.join('\n') });
  }
  return { messages: out, shown };
}
