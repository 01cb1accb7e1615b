/**
 * The Anthropic Messages API adapter: maps the neutral request to API params, streams the response
 * and assembles it from the raw events (text deltas are forwarded as they arrive; tool arguments
 * arrive as `input_json_delta` fragments and are parsed once the block stops).
 *
 * Prompt caching: the API caches the prefix tools → system → messages up to each `cache_control`
 * breakpoint. We mark the last tool (the whole tool list, which the registry keeps in a stable order),
 * the last system block (instructions and session context) and the last block of the conversation
 * (so each iteration of the loop re-reads the history from cache). Three of the four allowed.
 */
import { STATUS_CODES } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { Redactor } from '../../redaction/index.js';
import type { ContentPart, ToolDefinition } from '../../tools/index.js';
import { base64Size } from '../../util/base64-size.js';
import { isObject } from '../../util/is-object.js';
import type { AssistantBlock, ChatMessage } from '../messages.js';
import { emptyUsage, type Usage } from '../usage.js';
import {
  AbortError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from './types.js';

type Params = Anthropic.MessageCreateParamsStreaming;

export interface AnthropicProviderOptions {
  name: string;
  apiKey: string;
  model: string;
  baseUrl: string;
  maxTokens?: number;
  /** Retries of failed requests (429, 5xx, connection errors) before a stream starts; 2 by default. */
  maxRetries?: number;
}

const DEFAULT_MAX_TOKENS = 8192;
const CACHE: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/** Appends the tool's hard constraints, which the model must see with every call it plans. */
export function describeTool(tool: ToolDefinition): string {
  if (tool.hardConstraints.length === 0) return tool.description;
  const rules = tool.hardConstraints.map((rule) => `- ${rule}`).join('\n');
  return `${tool.description}\n\nHard constraints:\n${rules}`;
}

export function buildParams(request: ModelRequest, model: string, maxTokens = DEFAULT_MAX_TOKENS): Params {
  const tools: Anthropic.Tool[] = request.tools.map((tool, index) => ({
    name: tool.name,
    description: describeTool(tool),
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    ...(index === request.tools.length - 1 ? { cache_control: CACHE } : {}),
  }));
  const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: request.system }];
  if (request.context) system.push({ type: 'text', text: request.context });
  system[system.length - 1] = { ...system[system.length - 1]!, cache_control: CACHE };
  const messages = request.messages.map(toMessageParam);
  markLastBlock(messages);
  return { model, max_tokens: maxTokens, stream: true, system, messages, ...(tools.length ? { tools } : {}) };
}

/**
 * One bad block in the history would make every later request of the session fail with 400, so the
 * mapping repairs what the API rejects instead of passing it on: whitespace-only text is dropped (and
 * a message left empty gets a placeholder), a tool call's input is always an object, and tool results
 * carry no empty text and only image types the API takes.
 */
function toMessageParam(message: ChatMessage): Anthropic.MessageParam {
  if (message.role === 'assistant') {
    const content: Anthropic.ContentBlockParam[] = [];
    for (const block of message.content) {
      if (block.type === 'text') {
        if (hasText(block.text)) content.push({ type: 'text', text: block.text });
      } else {
        // Arguments cut at max_tokens stay a string in the history (the registry answered with why);
        // the API requires an object, so it sees `{}` next to that error result.
        content.push({ type: 'tool_use', id: block.id, name: block.name, input: asObject(block.input) });
      }
    }
    return { role: 'assistant', content: orPlaceholder(content) };
  }
  const content: Anthropic.ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      if (hasText(block.text)) content.push({ type: 'text', text: block.text });
    } else if (block.type === 'image') {
      content.push(toImageBlock(block.data, block.mimeType));
    } else {
      content.push({
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        is_error: block.is_error,
        content: toResultContent(block.content),
      });
    }
  }
  return { role: 'user', content: orPlaceholder(content) };
}

function hasText(text: string): boolean {
  return text.trim() !== '';
}

function asObject(input: unknown): Record<string, unknown> {
  return isObject(input) ? input : {};
}

function orPlaceholder(content: Anthropic.ContentBlockParam[]): Anthropic.ContentBlockParam[] {
  return content.length > 0 ? content : [{ type: 'text', text: '(empty)' }];
}

/** The image types the Messages API accepts; anything else is described instead of sent. */
const API_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/**
 * The largest image (decoded) sent to the model. The API refuses much larger ones, which would fail the
 * whole request, and one image of this size already costs a good part of the context.
 */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

type ResultBlock = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

/**
 * Tool results reach this adapter in the one neutral shape (text and image parts, whoever made them);
 * this is the only place that knows which images the Messages API takes, so the check is made once.
 */
function toResultContent(parts: readonly ContentPart[]): ResultBlock[] {
  const content: ResultBlock[] = [];
  for (const part of parts) {
    if (part.type === 'text') {
      if (hasText(part.text)) content.push({ type: 'text', text: part.text });
    } else {
      content.push(toImageBlock(part.data, part.mimeType));
    }
  }
  return content.length > 0 ? content : [{ type: 'text', text: '(no output)' }];
}

function toImageBlock(data: string, mimeType: string): ResultBlock {
  // MIME types are case-insensitive and may carry parameters (`image/webp; charset=binary`).
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  if (!API_IMAGE_TYPES.has(type)) {
    const kind = mimeType.replace(/[\r\n]+/g, ' ').slice(0, 100) || 'unknown type';
    return {
      type: 'text',
      text: `[an image of type ${kind} was left out: the model accepts only JPEG, PNG, GIF and WebP]`,
    };
  }
  const bytes = base64Size(data);
  if (bytes > MAX_IMAGE_BYTES) {
    return {
      type: 'text',
      text: `[an image (${type}, ${bytes} bytes) was left out: larger than the ${MAX_IMAGE_BYTES}-byte limit for images]`,
    };
  }
  return {
    type: 'image',
    source: { type: 'base64', media_type: type as Anthropic.Base64ImageSource['media_type'], data },
  };
}

function markLastBlock(messages: Anthropic.MessageParam[]): void {
  const last = messages.at(-1);
  if (!last || typeof last.content === 'string' || last.content.length === 0) return;
  const index = last.content.length - 1;
  last.content[index] = { ...last.content[index], cache_control: CACHE } as (typeof last.content)[number];
}

export class AnthropicProvider implements ModelProvider {
  readonly name: string;
  readonly model: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.name = options.name;
    this.model = options.model;
    // The key is passed explicitly so the SDK never goes looking for other credentials.
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: options.maxRetries ?? 2,
      logLevel: 'off',
    });
  }

  async complete(
    request: ModelRequest,
    { signal, onText }: { signal: AbortSignal; onText: (text: string) => void },
  ): Promise<ModelResponse> {
    const params = buildParams(request, this.model, this.options.maxTokens);
    const assembler = new ResponseAssembler(onText);
    try {
      const stream = await this.client.messages.create(params, { signal });
      for await (const event of stream) assembler.accept(event);
      return assembler.finish();
    } catch (error) {
      // A request that failed or was cancelled mid-stream was still billed for what it used.
      const failure = signal.aborted
        ? new AbortError()
        : toProviderError(error, this.options.apiKey, this.options.baseUrl);
      failure.usage = assembler.usageSoFar();
      throw failure;
    }
  }
}

interface OpenBlock {
  kind: 'text' | 'tool_use' | 'other';
  text: string;
  id: string;
  name: string;
  json: string;
}

/** Builds the response from raw stream events, in block index order. */
export class ResponseAssembler {
  private readonly blocks = new Map<number, OpenBlock>();
  private stopReason: string | undefined;
  private usage: Usage = emptyUsage();
  private started = false;
  private stopped = false;

  constructor(private readonly onText: (text: string) => void) {}

  accept(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.started = true;
        this.mergeUsage(event.message.usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        const open: OpenBlock = { kind: 'other', text: '', id: '', name: '', json: '' };
        if (block.type === 'text') {
          open.kind = 'text';
          open.text = block.text;
          if (block.text) this.onText(block.text);
        } else if (block.type === 'tool_use') {
          open.kind = 'tool_use';
          open.id = block.id;
          open.name = block.name;
        }
        this.blocks.set(event.index, open);
        break;
      }
      case 'content_block_delta': {
        const open = this.blocks.get(event.index);
        if (!open) break;
        if (event.delta.type === 'text_delta' && open.kind === 'text') {
          open.text += event.delta.text;
          this.onText(event.delta.text);
        } else if (event.delta.type === 'input_json_delta' && open.kind === 'tool_use') {
          open.json += event.delta.partial_json;
        }
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  usageSoFar(): Usage {
    return { ...this.usage };
  }

  /** message_delta usage is cumulative, so later numbers replace earlier ones rather than add. */
  private mergeUsage(raw: object | null | undefined): void {
    if (!raw) return;
    const usage = raw as Record<string, unknown>;
    const pick = (key: string, current: number): number => {
      const value = usage[key];
      return typeof value === 'number' ? value : current;
    };
    this.usage = {
      inputTokens: pick('input_tokens', this.usage.inputTokens),
      outputTokens: pick('output_tokens', this.usage.outputTokens),
      cacheReadTokens: pick('cache_read_input_tokens', this.usage.cacheReadTokens),
      cacheWriteTokens: pick('cache_creation_input_tokens', this.usage.cacheWriteTokens),
    };
  }

  finish(): ModelResponse {
    if (!this.started || !this.stopped || this.stopReason === undefined) {
      throw new ProviderError('the response stream ended before the message was complete');
    }
    const content: AssistantBlock[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const block = this.blocks.get(index)!;
      if (block.kind === 'text' && block.text) content.push({ type: 'text', text: block.text });
      if (block.kind === 'tool_use') {
        content.push({ type: 'tool_use', id: block.id, name: block.name, input: parseInput(block.json) });
      }
    }
    return { content, stopReason: this.stopReason, usage: this.usage };
  }
}

/** Empty input means `{}`; JSON that does not parse is kept as the string so the registry can say why. */
function parseInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * One line for a person: where the request went, the HTTP status and the API's own message, never a
 * stack or the key. `baseUrl` is shown without credentials or query (they may hold secrets).
 */
export function toProviderError(error: unknown, apiKey: string, baseUrl?: string): ProviderError {
  if (error instanceof ProviderError) return error;
  let message: string;
  let status: number | undefined;
  const api = baseUrl === undefined ? 'the model API' : `the model API at ${endpointOf(baseUrl)}`;
  if (error instanceof Anthropic.APIConnectionError) {
    message = `cannot reach ${api} (${error.message})`;
  } else if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
    status = error.status;
    const own = apiErrorMessage(error.error);
    const apiMessage = own ?? error.message;
    const reason = STATUS_CODES[error.status] ?? 'error';
    // Without a message of the API's own (`404 {}`), the body says nothing: the URL is the likely mistake.
    message =
      own === undefined
        ? `${api} answered ${error.status} ${reason} with no error message (is it an Anthropic Messages API endpoint?)`
        : `${api} answered ${error.status} ${reason}: ${apiMessage}`;
    if (error.status === 401) message += ' (check the API key)';
    if (
      error.status === 400 &&
      /prompt is too long|too many tokens|context (window|length)/i.test(apiMessage)
    ) {
      message +=
        ' (the conversation no longer fits the model: in the interactive session /clear starts a new one; with -p, ask for less at once)';
    }
  } else if (error instanceof Anthropic.APIError) {
    // An `event: error` inside the stream: the API reports an overload or failure mid-response.
    message = `the model API reported an error during the response: ${apiErrorMessage(error.error) ?? error.message}`;
  } else if (error instanceof Error) {
    message = `the model request failed: ${error.message}`;
  } else {
    message = `the model request failed: ${String(error)}`;
  }
  // The same redactor as every other message (the agent loop passes the session's over it again).
  if (apiKey) message = new Redactor([apiKey]).text(message);
  return new ProviderError(message, status);
}

function apiErrorMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const inner = (body as { error?: { message?: unknown; type?: unknown } }).error;
  if (inner && typeof inner.message === 'string') {
    return typeof inner.type === 'string' ? `${inner.type}: ${inner.message}` : inner.message;
  }
  const direct = (body as { message?: unknown }).message;
  return typeof direct === 'string' ? direct : undefined;
}

/** The endpoint as a person may see it: scheme, host and path, without user, password or query. */
function endpointOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'the configured base_url';
  }
}
