/**
 * The Tool contract. Built-in tools and adapted remote tools implement the same interface, so the
 * registry, the permission service and the agent loop never need to know where a tool came from.
 * Nothing here mentions MCP on purpose.
 */
import type { SessionState } from './session-state.js';

/** How much a tool can change the world; the permission modes are defined in terms of these. */
export type ToolCategory = 'read' | 'edit' | 'execute';

export const TOOL_CATEGORIES: readonly ToolCategory[] = ['read', 'edit', 'execute'];

/** A part of a tool result. The agent turns these into provider content blocks. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/**
 * The outcome of a call. `isError` means the call failed as a call (bad arguments, missing file,
 * timeout, ...); it is shown to the model, never thrown.
 */
export interface ToolResult {
  isError: boolean;
  content: ContentPart[];
}

/** A JSON Schema object describing the tool's arguments (any dialect Ajv knows; see registry). */
export type JsonSchemaObject = { [key: string]: unknown };

export interface ToolContext {
  /** Absolute path; relative paths in arguments resolve against it and commands run in it. */
  projectRoot: string;
  /** Aborted on timeout or when the user cancels; long-running tools must stop promptly. */
  signal: AbortSignal;
  /** Per-conversation memory shared by the built-ins (files read, for the read-before-edit rule). */
  session: SessionState;
  /** Told about progress the tool learns of (an MCP server's progress notifications); optional. */
  onprogress?: (progress: ToolProgress) => void;
}

/** Progress of a running call, as a server reports it: a count, maybe a total and a message. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface Tool<Args = Record<string, unknown>> {
  /** Unique within a registry; what the model calls. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly category: ToolCategory;
  /**
   * Sentences the provider adapter appends to the description; rules the model must not be able to
   * "forget" (e.g. "edit_file refuses files that were not read in this session").
   */
  readonly hardConstraints?: readonly string[];
  /**
   * Other names permission rules may know this tool by, besides `name`: names that stay the same when
   * `name` itself has to change (a tool adapted from elsewhere whose public name got a suffix to avoid a
   * clash). Rules are written by people; they must keep matching the tool they were written for.
   */
  readonly ruleNames?: readonly string[];
  /** True when the tool may run alongside other calls in the same turn (it has no shared side effects). */
  readonly concurrencySafe: boolean;
  /**
   * Runs the tool on arguments that already passed schema validation. Should not throw; the registry
   * still catches anything thrown and turns it into an error result.
   */
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
  /** File system paths the call would touch (as given, relative or absolute), for the path sandbox. */
  pathsOf?(args: Args): string[];
  /** The shell command the call would run, for the destructive-command check. */
  commandOf?(args: Args): string | undefined;
  /**
   * True when the call asks to run outside the OS sandbox (bash's `outside_sandbox`): the permission
   * service then asks the user plainly, in every mode but bypass.
   */
  leavesSandbox?(args: Args): boolean;
  /**
   * The deadline of this call, when the tool keeps time itself (bash: the call's `timeout_ms` plus the
   * time to kill and drain; a remote tool: its server's tool timeout plus a grace). The registry uses it
   * instead of the caller's default, so a tool is never cut short before its own limit, and its own,
   * more informative timeout message comes first.
   */
  timeoutMsFor?(args: Args): number | undefined;
}

/** Any tool, with arguments erased; what the registry stores. */
// biome-ignore lint/suspicious/noExplicitAny: registries hold tools of many argument types.
export type AnyTool = Tool<any>;

/** The subset of a tool the model sees, in registry order. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  hardConstraints: readonly string[];
}

export function textResult(text: string): ToolResult {
  return { isError: false, content: [{ type: 'text', text }] };
}

export function errorResult(text: string): ToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
