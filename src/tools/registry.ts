/**
 * The tool registry: one ordered set of tools, whatever their source.
 *
 * Order: definitions come out in insertion order and never reshuffle when unrelated tools come and go.
 * Prompt caching on the provider side keys on the exact tool list, so a stable order keeps the cache warm.
 *
 * Errors: `register` throws on a duplicate name, because registering the same name twice is a
 * programming error in the caller (the loader uses `tryRegister` to turn collisions into events).
 * `execute` never throws: every failure comes back as an `isError` result that names the tool and cause.
 */

import { errorText } from '../util/error-text.js';
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
}

export interface ExecuteOptions {
  /**
   * Abort the tool and return an error result after this many milliseconds (the config's
   * `tools.timeout`), unless the tool names its own deadline (`Tool.timeoutMsFor`).
   */
  timeoutMs?: number;
}

type ValidatorSlot = { ok: true; validator: ArgumentValidator } | { ok: false; reason: string };

interface Entry {
  tool: AnyTool;
  /** Compiled lazily on first call, then reused; also caches an uncompilable schema's error. */
  validator?: ValidatorSlot;
}

const UNKNOWN_TOOL_LISTING_LIMIT = 30;

export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();

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

  pathsOf(name: string, rawArgs: unknown): string[] {
    const tool = this.entries.get(name)?.tool;
    const args = parseArgumentsQuietly(rawArgs);
    if (!tool?.pathsOf || args === undefined) return [];
    try {
      return tool.pathsOf(args).filter((p): p is string => typeof p === 'string');
    } catch {
      // Arguments the tool cannot read will fail validation at execute time anyway.
      return [];
    }
  }

  commandOf(name: string, rawArgs: unknown): string | undefined {
    const tool = this.entries.get(name)?.tool;
    const args = parseArgumentsQuietly(rawArgs);
    if (!tool?.commandOf || args === undefined) return undefined;
    try {
      const command = tool.commandOf(args);
      return typeof command === 'string' ? command : undefined;
    } catch {
      return undefined;
    }
  }

  // --- Execution ---

  async execute(
    name: string,
    rawArgs: string | object | undefined,
    context: ExecuteContext,
    options: ExecuteOptions = {},
  ): Promise<ToolResult> {
    const entry = this.entries.get(name);
    if (!entry) return errorResult(this.unknownToolMessage(name));

    const parsed = parseArguments(rawArgs);
    if (!parsed.ok) return errorResult(`Tool "${name}" failed: invalid JSON arguments: ${parsed.reason}`);

    const slot = this.validatorFor(entry);
    if (!slot.ok)
      return errorResult(`Tool "${name}" failed: its input schema cannot be used: ${slot.reason}`);
    const problems = slot.validator.validate(parsed.args);
    if (problems.length > 0) {
      return errorResult(
        `Tool "${name}" failed: arguments do not match its input schema: ${problems.join('; ')}`,
      );
    }

    return runWithDeadline(
      entry.tool,
      parsed.args,
      context,
      ownTimeout(entry.tool, parsed.args) ?? options.timeoutMs,
    );
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

function parseArguments(raw: string | object | undefined): ParsedArgs {
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
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'arguments must be a JSON object' };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

function parseArgumentsQuietly(raw: unknown): Record<string, unknown> | undefined {
  if (raw !== undefined && typeof raw !== 'string' && typeof raw !== 'object') return undefined;
  const parsed = parseArguments(raw as string | object | undefined);
  return parsed.ok ? parsed.args : undefined;
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
