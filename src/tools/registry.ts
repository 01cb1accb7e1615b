/**
 * The tool registry: one ordered set of tools, whatever their source.
 *
 * Order: definitions come out in insertion order and never reshuffle when unrelated tools come and go.
 * Prompt caching on the provider side keys on the exact tool list, so a stable order keeps the cache warm.
 *
 * One call, one pass: `prepare` resolves the name and parses and validates the arguments once into a
 * `PreparedCall`; the permission service decides on that call (its facts callbacks get the prepared
 * arguments, never the raw text) and `run` executes the very same arguments object. `execute` is
 * `prepare` + `run` for callers without a permission step.
 *
 * Errors: `register` throws on a duplicate name, because registering the same name twice is a
 * programming error in the caller (the loader uses `tryRegister` to turn collisions into events).
 * `prepare`, `run` and `execute` never throw: every failure comes back as an `isError` result that
 * names the tool and cause.
 */

import { errorText } from '../util/error-text.js';
import { isObject } from '../util/is-object.js';
import { type ArgumentValidator, compileValidator } from './schema-validator.js';
import type { SessionState } from './session-state.js';
import {
  type AnyTool,
  errorResult,
  type ToolCategory,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from './tool.js';

export class DuplicateToolError extends Error {
  constructor(readonly toolName: string) {
    super(`a tool named "${toolName}" is already registered`);
    this.name = 'DuplicateToolError';
  }
}

export type RegisterOutcome = { ok: true } | { ok: false; error: DuplicateToolError };

export interface ExecuteContext {
  projectRoot: string;
  session: SessionState;
  /** The caller's cancellation (e.g. the user pressed Ctrl-C); combined with the timeout. */
  signal?: AbortSignal;
  /** Passed on to the tool (ToolContext.onprogress). */
  onprogress?: ToolContext['onprogress'];
}

export interface ExecuteOptions {
  /**
   * Abort the tool and return an error result after this many milliseconds (the config's
   * `tools.timeout`), unless the tool names its own deadline (`Tool.timeoutMsFor`).
   */
  timeoutMs?: number;
}

/**
 * A call the registry resolved and whose arguments it parsed and validated. Only `prepare` makes them
 * (`run` refuses any other object), so holding one means the arguments passed the tool's schema.
 */
export interface PreparedCall {
  /** The registered name; what permission rules and the person see. */
  readonly toolName: string;
  readonly tool: AnyTool;
  /** Parsed from the model's input once; the permission facts and `execute` see this same object. */
  readonly args: Record<string, unknown>;
}

/** `known` is false when no tool has that name (the loop counts rounds of unknown tools). */
export type Preparation =
  | { ok: true; call: PreparedCall }
  | { ok: false; known: boolean; result: ToolResult };

type ValidatorSlot = { ok: true; validator: ArgumentValidator } | { ok: false; reason: string };

interface Entry {
  tool: AnyTool;
  /** Compiled lazily on first call, then reused; also caches an uncompilable schema's error. */
  validator?: ValidatorSlot;
}

const UNKNOWN_TOOL_LISTING_LIMIT = 30;

export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  /** Calls this registry prepared; `run` takes no other (a hand-made one skipped validation). */
  private readonly prepared = new WeakSet<PreparedCall>();

  register(tool: AnyTool): void {
    const outcome = this.tryRegister(tool);
    if (!outcome.ok) throw outcome.error;
  }

  tryRegister(tool: AnyTool): RegisterOutcome {
    if (this.entries.has(tool.name)) return { ok: false, error: new DuplicateToolError(tool.name) };
    this.entries.set(tool.name, { tool });
    return { ok: true };
  }

  /** Registers all or none: a duplicate (against the registry or within `tools`) throws before any change. */
  registerAll(tools: readonly AnyTool[]): void {
    const seen = new Set<string>();
    for (const tool of tools) {
      if (this.entries.has(tool.name) || seen.has(tool.name)) throw new DuplicateToolError(tool.name);
      seen.add(tool.name);
    }
    for (const tool of tools) this.entries.set(tool.name, { tool });
  }

  /** Removes a tool (e.g. its server went away). Returns whether it was registered. */
  unregister(name: string): boolean {
    return this.entries.delete(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): AnyTool | undefined {
    return this.entries.get(name)?.tool;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** What the model sees, in registration order. */
  definitions(): ToolDefinition[] {
    return [...this.entries.values()].map(({ tool }) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      hardConstraints: tool.hardConstraints ?? [],
    }));
  }

  // --- Facts for the permission service (it asks; it never lists tools itself). ---

  /** An unknown tool is treated as the most dangerous category. */
  categoryOf(name: string): ToolCategory {
    return this.entries.get(name)?.tool.category ?? 'execute';
  }

  /** The names a permission rule may match: the registered name, then the tool's own `ruleNames`. */
  identitiesOf(name: string): string[] {
    const extra = this.entries.get(name)?.tool.ruleNames ?? [];
    return [name, ...extra.filter((other) => typeof other === 'string' && other !== name)];
  }

  /**
   * Paths the call would touch. `args` are a prepared call's arguments (`PreparedCall.args`), already
   * parsed and validated; they are not parsed again here.
   */
  pathsOf(name: string, args: unknown): string[] {
    const tool = this.entries.get(name)?.tool;
    if (!tool?.pathsOf || !isObject(args)) return [];
    try {
      return tool.pathsOf(args).filter((p): p is string => typeof p === 'string');
    } catch {
      return [];
    }
  }

  /** The shell command the call would run; `args` as for `pathsOf`. */
  commandOf(name: string, args: unknown): string | undefined {
    const tool = this.entries.get(name)?.tool;
    if (!tool?.commandOf || !isObject(args)) return undefined;
    try {
      const command = tool.commandOf(args);
      return typeof command === 'string' ? command : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether the call asks to run outside the OS sandbox; `args` as for `pathsOf`. */
  leavesSandbox(name: string, args: unknown): boolean {
    const tool = this.entries.get(name)?.tool;
    if (!tool?.leavesSandbox || !isObject(args)) return false;
    try {
      return tool.leavesSandbox(args) === true;
    } catch {
      // A tool that cannot say is treated as asking to leave: the question is the safe side.
      return true;
    }
  }

  // --- One call: prepare once, then run ---

  /** Resolves the name, parses the arguments (a JSON string or an object) and validates them, once. */
  prepare(name: string, rawArgs: unknown): Preparation {
    const entry = this.entries.get(name);
    if (!entry) return { ok: false, known: false, result: errorResult(this.unknownToolMessage(name)) };
    const failed = (text: string): Preparation => ({ ok: false, known: true, result: errorResult(text) });

    const parsed = parseArguments(rawArgs);
    if (!parsed.ok) return failed(`Tool "${name}" failed: invalid JSON arguments: ${parsed.reason}`);

    const slot = this.validatorFor(entry);
    if (!slot.ok) return failed(`Tool "${name}" failed: its input schema cannot be used: ${slot.reason}`);
    const problems = slot.validator.validate(parsed.args);
    if (problems.length > 0) {
      return failed(`Tool "${name}" failed: arguments do not match its input schema: ${problems.join('; ')}`);
    }
    const call: PreparedCall = { toolName: name, tool: entry.tool, args: parsed.args };
    this.prepared.add(call);
    return { ok: true, call };
  }

  /**
   * Runs a call `prepare` made, with a deadline. A tool removed or replaced since (its server went away)
   * is not run: the call was checked against a tool that is no longer there.
   */
  async run(call: PreparedCall, context: ExecuteContext, options: ExecuteOptions = {}): Promise<ToolResult> {
    if (!this.prepared.has(call)) {
      return errorResult(`Tool "${call.toolName}" failed: the call was not prepared by this registry`);
    }
    if (this.entries.get(call.toolName)?.tool !== call.tool) {
      return errorResult(
        `Tool "${call.toolName}" failed: the tool was removed before the call could run (its server may have stopped)`,
      );
    }
    // A tool that keeps time itself (bash, remote tools) names its own deadline; else the config's.
    return runWithDeadline(
      call.tool,
      call.args,
      context,
      ownTimeout(call.tool, call.args) ?? options.timeoutMs,
    );
  }

  /** `prepare` and `run` in one step, for callers that do not ask the permission service. */
  async execute(
    name: string,
    rawArgs: unknown,
    context: ExecuteContext,
    options: ExecuteOptions = {},
  ): Promise<ToolResult> {
    const preparation = this.prepare(name, rawArgs);
    return preparation.ok ? this.run(preparation.call, context, options) : preparation.result;
  }

  private validatorFor(entry: Entry): ValidatorSlot {
    if (!entry.validator) {
      try {
        entry.validator = { ok: true, validator: compileValidator(entry.tool.inputSchema) };
      } catch (error) {
        entry.validator = { ok: false, reason: errorText(error) };
      }
    }
    return entry.validator;
  }

  private unknownToolMessage(name: string): string {
    const known = this.names();
    const listed = known.slice(0, UNKNOWN_TOOL_LISTING_LIMIT).join(', ');
    const more =
      known.length > UNKNOWN_TOOL_LISTING_LIMIT
        ? `, and ${known.length - UNKNOWN_TOOL_LISTING_LIMIT} more`
        : '';
    return `Tool "${name}" failed: no tool with that name is registered. Available: ${listed || '(none)'}${more}`;
  }
}

type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; reason: string };

function parseArguments(raw: unknown): ParsedArgs {
  // Models send "" or nothing for tools without parameters.
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return { ok: true, args: {} };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { ok: false, reason: errorText(error) };
    }
  }
  if (!isObject(value)) return { ok: false, reason: 'arguments must be a JSON object' };
  return { ok: true, args: value };
}

async function runWithDeadline(
  tool: AnyTool,
  args: Record<string, unknown>,
  context: ExecuteContext,
  timeoutMs: number | undefined,
): Promise<ToolResult> {
  const controller = new AbortController();
  const outer = context.signal;
  let settleEarly: (result: ToolResult) => void = () => {};
  const early = new Promise<ToolResult>((resolve) => {
    settleEarly = resolve;
  });

  const onOuterAbort = () => {
    controller.abort(outer?.reason);
    settleEarly(errorResult(`Tool "${tool.name}" failed: the call was cancelled`));
  };
  if (outer?.aborted)
    return errorResult(`Tool "${tool.name}" failed: the call was cancelled before it started`);
  outer?.addEventListener('abort', onOuterAbort, { once: true });

  let timer: NodeJS.Timeout | undefined;
  if (timeoutMs !== undefined && timeoutMs > 0) {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      settleEarly(errorResult(`Tool "${tool.name}" failed: timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  }

  const toolContext: ToolContext = {
    projectRoot: context.projectRoot,
    session: context.session,
    signal: controller.signal,
    ...(context.onprogress === undefined ? {} : { onprogress: context.onprogress }),
  };
  const running = (async () => {
    try {
      const result = await tool.execute(args, toolContext);
      return isToolResult(result)
        ? result
        : errorResult(`Tool "${tool.name}" failed: it returned something that is not a tool result`);
    } catch (error) {
      return errorResult(`Tool "${tool.name}" failed: ${errorText(error)}`);
    }
  })();

  try {
    // The tool got the abort signal; we do not wait for it to notice before answering.
    return await Promise.race([running, early]);
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

function ownTimeout(tool: AnyTool, args: Record<string, unknown>): number | undefined {
  try {
    const ms = tool.timeoutMsFor?.(args);
    return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

function isToolResult(value: unknown): value is ToolResult {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as { isError?: unknown; content?: unknown };
  return typeof candidate.isError === 'boolean' && Array.isArray(candidate.content);
}
