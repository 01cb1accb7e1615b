/**
 * A tool of an MCP server, adapted to the local Tool interface so the registry, the permission
 * service and the agent loop treat it like any built-in.
 *
 * - The category comes from the server's config. Tool annotations (readOnlyHint, ...) are hints from
 *   the server itself and could be wrong or hostile, so by default they never change it; only the
 *   person's own `trust_annotations: true` for the server lets them decide (see `annotatedCategory`).
 * - `concurrencySafe` is true only for the `read` category: a remote tool is opaque, and the user's
 *   statement that a server only reads is the only evidence that parallel calls cannot interfere.
 * - `ruleNames`: permission rules also match `mcp__<server>__<original>` and `mcp:<server>/<original>`,
 *   so a rule keeps holding when a sibling's arrival gives this tool's public name a hash suffix.
 * - No `pathsOf`/`commandOf`: the path sandbox and the destructive-command table cannot see inside a
 *   remote tool, so the permission service asks (in auto mode too) unless a rule says otherwise.
 */
import type { Redactor } from '../redaction/index.js';
import { redactToolResult } from '../tools/result-redaction.js';
import type {
  JsonSchemaObject,
  Tool,
  ToolCategory,
  ToolContext,
  ToolProgress,
  ToolResult,
} from '../tools/tool.js';
import { isObject } from '../util/is-object.js';
import type { CallToolOptions, McpTool, ToolCallResult } from './client.js';
import { capToolOutput } from './output-spill.js';
import { convertToolCallResult } from './result-conversion.js';
import { ruleIdentities } from './tool-names.js';

/** The part of McpClient a remote tool needs (a fake in tests). */
export interface ToolCaller {
  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<ToolCallResult>;
}

export interface RemoteToolOptions {
  /** The server's config name. */
  server: string;
  /** The tool as the server listed it; `definition.name` is what the server is called with. */
  definition: McpTool;
  /** The public name (see tool-names.ts). */
  name: string;
  /** From the server's config; `execute` when absent. */
  category?: ToolCategory;
  client: ToolCaller;
  /** Time allowed for one call; the client's default when absent. */
  callTimeoutMs?: number;
  /** Text beyond this is cut and saved to a file (output-spill.ts). */
  maxOutputChars?: number;
  /** Where oversized outputs are saved. */
  spillDirectory?: string;
  /** The server's `trust_annotations`: its annotations set this tool's category (default false). */
  trustAnnotations?: boolean;
  /** Told about the call's progress notifications (the live progress line); see ToolContext. */
  onprogress?: (progress: ToolProgress) => void;
  /**
   * Masks the secrets furfly knows in every result before it is cut and saved: a saved full output is
   * a file on disk, and a cut must not leave half a secret behind.
   */
  redactor?: Redactor;
}

/** How much later than the client's own call timeout the registry gives up on a remote call. */
const REMOTE_DEADLINE_GRACE_MS = 1000;

export class RemoteTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly category: ToolCategory;
  readonly concurrencySafe: boolean;
  readonly hardConstraints: readonly string[];
  readonly server: string;
  /** The server's own name for the tool. */
  readonly realName: string;
  /** Names rules may use besides the public one; they survive a collision suffix (tool-names.ts). */
  readonly ruleNames: readonly string[];

  constructor(private readonly options: RemoteToolOptions) {
    const { definition, server } = options;
    this.name = options.name;
    this.server = server;
    this.realName = definition.name;
    this.ruleNames = ruleIdentities(server, definition.name);
    this.description = describe(definition, server);
    this.inputSchema = isObject(definition.inputSchema) ? definition.inputSchema : { type: 'object' };
    const configured = options.category ?? 'execute';
    this.category = options.trustAnnotations ? annotatedCategory(definition, configured) : configured;
    this.concurrencySafe = this.category === 'read';
    this.hardConstraints = [
      `Provided by the external MCP server "${server}"; its actions and results are not covered by the local sandbox.`,
    ];
  }

  /**
   * The client's timeout cancels the request on the server and says which server and tool timed out;
   * the registry's deadline, a little later, is only the backstop.
   */
  timeoutMsFor(): number | undefined {
    const ms = this.options.callTimeoutMs;
    return ms === undefined ? undefined : ms + REMOTE_DEADLINE_GRACE_MS;
  }

  async execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const result = await this.options.client.callTool(this.realName, args, {
      signal: context.signal,
      timeoutMs: this.options.callTimeoutMs,
      // Progress is asked for (a progress token sent) only when someone shows it.
      ...(context.onprogress === undefined && this.options.onprogress === undefined
        ? {}
        : {
            onprogress: (progress: ToolProgress) => {
              context.onprogress?.(progress);
              this.options.onprogress?.(progress);
            },
          }),
    });
    const converted = convertToolCallResult(result);
    const redacted = this.options.redactor ? redactToolResult(converted, this.options.redactor) : converted;
    return capToolOutput(redacted, {
      maxChars: this.options.maxOutputChars,
      directory: this.options.spillDirectory,
      label: this.name,
    });
  }
}

/**
 * The category a tool's own annotations claim, for a server whose annotations the person trusts:
 * `readOnlyHint: true` is read; otherwise `destructiveHint: false` is edit (it changes things, but
 * only additively); anything else is execute, the spec's default for a tool that is not read-only.
 * A tool without annotations keeps the configured category.
 */
export function annotatedCategory(
  definition: Pick<McpTool, 'annotations'>,
  configured: ToolCategory,
): ToolCategory {
  const annotations = definition.annotations;
  if (!isObject(annotations)) return configured;
  if (annotations.readOnlyHint === true) return 'read';
  if (annotations.destructiveHint === false) return 'edit';
  if (annotations.readOnlyHint === undefined && annotations.destructiveHint === undefined) return configured;
  return 'execute';
}

function describe(definition: McpTool, server: string): string {
  const description = typeof definition.description === 'string' ? definition.description.trim() : '';
  if (description) return description;
  const title = typeof definition.title === 'string' ? definition.title.trim() : '';
  return title || `The tool "${definition.name}" of the MCP server "${server}" (it has no description).`;
}
