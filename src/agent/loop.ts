/**
 * The agent loop for one user turn: ask the model, run the tools it calls, give it the results, and
 * repeat until it answers without tools or a limit is reached.
 *
 * Every tool call gets exactly one `tool_result`, in call order, in ONE user message, whatever
 * happened to it (denied, refused, unknown, failed, cancelled): the API rejects a conversation with
 * an unanswered `tool_use`, and the model learns most from a result that says why.
 *
 * Nothing here throws for an API or tool problem: the turn ends with a `stopReason` and, where a
 * person should know, an `error` or `notice` event.
 */
import { Redactor } from '../redaction/index.js';
import {
  errorResult,
  type PreparedCall,
  redactToolResult,
  type SessionState,
  type ToolProgress,
  type ToolRegistry,
  type ToolResult,
} from '../tools/index.js';
import {
  type AssistantBlock,
  appendUserContent,
  type ChatMessage,
  type ToolResultBlock,
  type ToolUseBlock,
  type UserBlock,
} from './messages.js';
import type { PermissionGate } from './permission-prompt.js';
import { AbortError, type ModelProvider, ProviderError } from './provider/types.js';
import { groupCalls } from './schedule.js';
import { addUsage, emptyUsage, type Usage } from './usage.js';

export const DEFAULT_SYSTEM_PROMPT = [
  "You are furfly, a coding agent working in the user's terminal.",
  'Use the tools to read, search and change the project; prefer small, verifiable steps.',
  'Read a file before editing it. Say briefly what you did when you are done.',
].join(' ');

export type ToolCallStatus = 'ok' | 'error' | 'denied' | 'refused' | 'unknown' | 'cancelled';

export interface ToolCallRecord {
  id: string;
  name: string;
  input: unknown;
  status: ToolCallStatus;
  isError: boolean;
}

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'max_iterations'
  | 'unknown_tools'
  | 'cancelled'
  | 'error';

export interface TurnResult {
  /** The text of the model's last response. */
  text: string;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** Model requests made in this turn. */
  iterations: number;
  stopReason: StopReason;
  /** With `stopReason: 'error'`: what went wrong, for a person. */
  error?: string;
}

export interface AgentEvents {
  /** Model text as it streams in. */
  text?(delta: string): void;
  /** A model response finished (interactive output ends its line here). */
  responseEnd?(): void;
  /** A tool call finished, with its result. */
  toolCall?(record: ToolCallRecord, result: ToolResult): void;
  /** An approved tool call starts running (the live progress line starts its clock here). */
  toolStart?(call: { id: string; name: string; input: unknown }): void;
  /** A running call reported progress (an MCP server's notifications/progress). */
  toolProgress?(id: string, progress: ToolProgress): void;
  /** Something the person should see that is not the model's text (limits, cancellations). */
  notice?(message: string): void;
  /** The turn failed (API or stream error); a readable sentence. */
  error?(message: string): void;
}

export interface AgentOptions {
  provider: ModelProvider;
  registry: ToolRegistry;
  gate: PermissionGate;
  projectRoot: string;
  session: SessionState;
  maxIterations: number;
  systemPrompt?: string;
  /** Built fresh for every request (FURFLY.md may change during a session). */
  context?: () => string;
  toolTimeoutMs?: number;
  /**
   * Every secret furfly knows (see known-secrets.ts): every tool result, built-in or MCP, and every
   * error passes it before the model, the terminal or a log sees it. Nothing is masked without it.
   */
  redactor?: Redactor;
}

/** Stop after this many consecutive rounds in which every call named a tool that does not exist. */
const UNKNOWN_ROUNDS_LIMIT = 2;

export class Agent {
  readonly messages: ChatMessage[] = [];
  /** Plan mode: only read-only tools are offered and run. */
  planMode = false;

  constructor(private readonly options: AgentOptions) {}

  private get redactor(): Redactor {
    return this.options.redactor ?? Redactor.none;
  }

  get provider(): ModelProvider {
    return this.options.provider;
  }

  clear(): void {
    this.messages.length = 0;
  }

  /**
   * After a turn broke off unexpectedly: gives every tool call of the last assistant message that has
   * no result an error result, since the API rejects a history with an unanswered tool_use.
   */
  answerOpenToolCalls(text: string): void {
    const last = this.messages.at(-1);
    if (last?.role !== 'assistant') return;
    const open = last.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (open.length === 0) return;
    appendUserContent(
      this.messages,
      open.map((call) => ({
        type: 'tool_result' as const,
        tool_use_id: call.id,
        is_error: true,
        content: [{ type: 'text' as const, text }],
      })),
    );
  }

  async runTurn(
    prompt: string,
    {
      signal,
      events = {},
      attachments = [],
    }: {
      signal: AbortSignal;
      events?: AgentEvents;
      /** Blocks sent after the prompt in the same message (attached MCP resources), already redacted. */
      attachments?: UserBlock[];
    },
  ): Promise<TurnResult> {
    const { provider, maxIterations } = this.options;
    appendUserContent(this.messages, [{ type: 'text', text: prompt }, ...attachments]);
    const result: TurnResult = {
      text: '',
      toolCalls: [],
      usage: emptyUsage(),
      iterations: 0,
      stopReason: 'end_turn',
    };
    let unknownRounds = 0;

    for (;;) {
      if (result.iterations >= maxIterations) {
        result.stopReason = 'max_iterations';
        events.notice?.(
          `Stopped after ${maxIterations} model requests (max_iterations). Raise max_iterations in the config, or ask the model to continue.`,
        );
        return result;
      }
      result.iterations++;
      let content: AssistantBlock[];
      let stopReason: string;
      try {
        const response = await provider.complete(
          {
            system: this.options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
            context: this.options.context?.() ?? '',
            tools: this.offeredTools(),
            messages: this.messages,
          },
          { signal, onText: (delta) => events.text?.(delta) },
        );
        content = response.content;
        stopReason = response.stopReason;
        result.usage = addUsage(result.usage, response.usage);
      } catch (error) {
        events.responseEnd?.();
        if ((error instanceof AbortError || error instanceof ProviderError) && error.usage) {
          result.usage = addUsage(result.usage, error.usage);
        }
        if (error instanceof AbortError || signal.aborted) {
          result.stopReason = 'cancelled';
          events.notice?.('Cancelled.');
        } else {
          result.stopReason = 'error';
          result.error = this.redactor.text(
            error instanceof ProviderError ? error.message : `the model request failed: ${String(error)}`,
          );
          events.error?.(result.error);
        }
        return result;
      }
      events.responseEnd?.();
      // An empty assistant message is rejected by the API; a placeholder keeps the history valid.
      this.messages.push({
        role: 'assistant',
        content: content.length ? content : [{ type: 'text', text: '(no answer)' }],
      });
      result.text = content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');

      const calls = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      if (calls.length === 0) {
        result.stopReason = isModelStop(stopReason) ? stopReason : 'end_turn';
        return result;
      }

      const allUnknown = calls.every((call) => !this.options.registry.has(call.name));
      const results = await this.runCalls(calls, signal, events, result.toolCalls);
      appendUserContent(this.messages, results);

      if (signal.aborted) {
        result.stopReason = 'cancelled';
        events.notice?.('Cancelled; running tool calls were stopped.');
        return result;
      }
      unknownRounds = allUnknown ? unknownRounds + 1 : 0;
      if (unknownRounds >= UNKNOWN_ROUNDS_LIMIT) {
        result.stopReason = 'unknown_tools';
        const names = [...new Set(calls.map((c) => c.name))].join(', ');
        events.notice?.(
          `Stopped: the model called only tools that do not exist, ${UNKNOWN_ROUNDS_LIMIT} rounds in a row (last: ${names}).`,
        );
        return result;
      }
    }
  }

  /** In plan mode only read tools are offered; the order stays the registry's. */
  private offeredTools() {
    // A server may put a secret it was sent into a tool description too; the model sees none.
    const all = this.options.registry.definitions().map((tool) => ({
      ...tool,
      description: this.redactor.text(tool.description),
      inputSchema: this.redactor.value(tool.inputSchema),
    }));
    if (!this.planMode) return all;
    return all.filter((tool) => this.options.registry.categoryOf(tool.name) === 'read');
  }

  private async runCalls(
    calls: ToolUseBlock[],
    signal: AbortSignal,
    events: AgentEvents,
    records: ToolCallRecord[],
  ): Promise<ToolResultBlock[]> {
    const { registry } = this.options;
    const results = new Map<string, { status: ToolCallStatus; result: ToolResult }>();

    // Each call is prepared once (name resolved, arguments parsed and validated); the permission
    // decision and the execution both use that prepared call. Permission first, one question at a time
    // in call order, before anything runs.
    const approved: { call: ToolUseBlock; prepared: PreparedCall }[] = [];
    for (const call of calls) {
      if (signal.aborted) {
        results.set(call.id, {
          status: 'cancelled',
          result: errorResult('Not run: the user cancelled the turn.'),
        });
        continue;
      }
      const preparation = registry.prepare(call.name, call.input);
      if (!preparation.ok && !preparation.known) {
        // The registry's answer lists the real tools.
        results.set(call.id, { status: 'unknown', result: preparation.result });
      } else if (this.planMode && registry.categoryOf(call.name) !== 'read') {
        results.set(call.id, {
          status: 'refused',
          result: errorResult(
            `Not run: plan mode is on, so only read-only tools may run. Propose the change instead; the user leaves plan mode with /do.`,
          ),
        });
      } else if (!preparation.ok) {
        // Arguments that do not parse or fit the schema cannot run, so nobody is asked about them.
        results.set(call.id, { status: 'error', result: preparation.result });
      } else {
        const outcome = await this.options.gate.check(preparation.call, signal);
        if (outcome.run) approved.push({ call, prepared: preparation.call });
        else results.set(call.id, { status: outcome.status, result: errorResult(outcome.message) });
      }
    }

    const run = async ({ call, prepared }: { call: ToolUseBlock; prepared: PreparedCall }): Promise<void> => {
      events.toolStart?.({ id: call.id, name: call.name, input: call.input });
      const onprogress = events.toolProgress
        ? (progress: ToolProgress) => events.toolProgress?.(call.id, progress)
        : undefined;
      const result = await registry.run(
        prepared,
        {
          projectRoot: this.options.projectRoot,
          session: this.options.session,
          signal,
          ...(onprogress === undefined ? {} : { onprogress }),
        },
        { timeoutMs: this.options.toolTimeoutMs },
      );
      const status: ToolCallStatus = signal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok';
      results.set(call.id, { status, result });
    };
    for (const group of groupCalls(approved, ({ prepared }) => prepared.tool.concurrencySafe === true)) {
      if (group.parallel) await Promise.all(group.calls.map(run));
      else for (const call of group.calls) await run(call);
    }

    return calls.map((call) => {
      const { status, result: raw } = results.get(call.id)!;
      // The one place every result passes, whatever produced it: redacted before anyone sees it.
      const result = redactToolResult(raw, this.redactor);
      const record: ToolCallRecord = {
        id: call.id,
        name: call.name,
        input: call.input,
        status,
        isError: result.isError,
      };
      records.push(record);
      events.toolCall?.(record, result);
      const content =
        result.content.length > 0
          ? result.content
          : [{ type: 'text' as const, text: result.isError ? '(error)' : '(no output)' }];
      return { type: 'tool_result', tool_use_id: call.id, is_error: result.isError, content };
    });
  }
}

function isModelStop(reason: string): reason is 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal' {
  return (
    reason === 'end_turn' || reason === 'max_tokens' || reason === 'stop_sequence' || reason === 'refusal'
  );
}
