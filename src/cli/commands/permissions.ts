/**
 * `furfly permissions check <tool> ['<json args>'] [--mode m] [--json] [--cwd dir] [--config file]`:
 * what the agent would decide for one tool call in this project (allow, ask or deny) and why. For people
 * writing rules, and for tests.
 *
 * It takes the agent's own path: the config loaded as a session loads it (session-config.ts), the
 * same permission service built the same way, asked with the same facts. Built-in tools are the real
 * ones (a `bash` call's command goes through the destructive-command check, a file tool's paths
 * through the path sandbox). No MCP server is started: a name of the form `mcp__<server>__<tool>` or
 * `mcp:<server>/<tool>` stands for the tool `<tool>` of that server, built by the same adapter the
 * loader uses (RemoteTool, with a client that is never called), so its category comes from the server's
 * config entry (`execute` when the server is not configured or says nothing) and rules see the same
 * identities. Any other unknown name is an unknown tool, which the agent treats as `execute`.
 *
 * Exit codes: 0 with a decision (whatever it is), 1 when the config has errors, 2 for usage mistakes.
 */

import path from 'node:path';
import type { CAC } from 'cac';
import { createPermissionService, loadSessionConfig } from '../../agent/session-config.js';
import type { Env } from '../../config/expand.js';
import type { ResolvedConfig } from '../../config/types.js';
import { RemoteTool } from '../../mcp/remote-tool.js';
import { parseRemoteToolName, plainToolName, TOOL_NAME_PATTERN } from '../../mcp/tool-names.js';
import { isPermissionMode, PERMISSION_MODES, type PermissionDecision } from '../../permission/index.js';
import { terminalSafeJson, terminalText } from '../../terminal/sanitize.js';
import { builtinTools, ToolRegistry } from '../../tools/index.js';
import { actionUsage } from '../action-usage.js';
import { cwdProblem } from '../cwd-option.js';

export interface PermissionsCommandOptions {
  readonly mode?: string;
  readonly json?: boolean;
  readonly cwd?: string;
  readonly config?: string;
}

export interface PermissionsCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
  readonly homeDir?: string;
}

export const PERMISSIONS_ACTIONS = ['check'] as const;

/** How the checked tool was understood; printed with the decision so a surprise can be explained. */
export interface CheckedTool {
  /** The name the decision was made for: the public name the model would call. */
  name: string;
  kind: 'builtin' | 'mcp' | 'unknown';
  category: string;
  /** Every name a rule may match (see docs/config.md, permissions.rules). */
  identities: string[];
  /** With kind `mcp`. */
  server?: string;
  /** With kind `mcp`: the tool's own name on the server. */
  original?: string;
  /** With kind `mcp`: whether the server is in the config (its category applies). */
  configured?: boolean;
  /** What the path sandbox and the destructive-command check were given. */
  paths: string[];
  command?: string;
}

export interface CheckReport {
  tool: CheckedTool;
  mode: string;
  decision: PermissionDecision;
}

class UsageError extends Error {}

export async function runPermissionsCommand(
  action: string | undefined,
  positionals: readonly string[],
  options: PermissionsCommandOptions,
  io: PermissionsCommandIo,
): Promise<number> {
  try {
    if (action !== 'check') {
      throw new UsageError(
        actionUsage('permissions', action, ['check'], " <tool> ['<json args>'] [--mode m]"),
      );
    }
    const [toolName, argsText, ...extra] = positionals;
    if (toolName === undefined || toolName === '') throw new UsageError('say which tool to check');
    if (extra.length > 0) {
      throw new UsageError('too many arguments: quote the JSON arguments as one word');
    }
    const args = parseArgs(argsText);
    if (options.mode !== undefined && !isPermissionMode(options.mode)) {
      throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(', ')} (got "${options.mode}")`);
    }
    const cwdUsage = cwdProblem(io.cwd, options.cwd);
    if (cwdUsage) throw new UsageError(cwdUsage);
    const cwd = path.resolve(io.cwd, options.cwd ?? '.');

    const loaded = loadSessionConfig({
      cwd,
      configFile: options.config,
      env: io.env,
      homeDir: io.homeDir,
    });
    if (!loaded.ok) {
      io.stderr(`${terminalText(loaded.message)}\n`);
      return 1;
    }
    // The decision is for the config a run would use: say what of an untrusted project it leaves out.
    for (const notice of loaded.notices) io.stderr(`${terminalText(notice)}\n`);
    const report = await check(toolName, args, loaded.config, {
      projectRoot: loaded.projectRoot,
      env: io.env,
      homeDir: io.homeDir,
      mode: options.mode,
    });
    // Tool names, rule globs and commands are not furfly's own text: escapes are shown, never sent raw.
    io.stdout(options.json === true ? `${terminalSafeJson(report, 2)}\n` : terminalText(describe(report)));
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`furfly permissions: ${error.message}\n`);
    return 2;
  }
}

/** The decision for one call, with the facts it was made on. */
export async function check(
  toolName: string,
  args: Record<string, unknown>,
  config: ResolvedConfig,
  settings: { projectRoot: string; env: Env; homeDir?: string; mode?: string },
): Promise<CheckReport> {
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools());
  const builtin = registry.has(toolName);
  const remote = builtin ? undefined : remoteStandIn(toolName, config);
  if (remote) registry.register(remote.tool);
  const name = remote?.tool.name ?? toolName;

  const mode = isPermissionMode(settings.mode) ? settings.mode : undefined;
  const service = createPermissionService(
    config,
    { projectRoot: settings.projectRoot, env: settings.env, homeDir: settings.homeDir, mode },
    registry,
  );
  // The bash grammar loads asynchronously; until it has, every command asks (fail closed). The agent's
  // gate waits for it before each decision, and so does the check, or it would not show the agent's answer.
  await service.prepare();
  const decision = service.decide({ toolName: name, args });
  const command = registry.commandOf(name, args);
  const tool: CheckedTool = {
    name,
    kind: builtin ? 'builtin' : remote ? 'mcp' : 'unknown',
    category: registry.categoryOf(name),
    identities: registry.identitiesOf(name),
    ...(remote
      ? { server: remote.tool.server, original: remote.tool.realName, configured: remote.configured }
      : {}),
    paths: registry.pathsOf(name, args),
    ...(command === undefined ? {} : { command }),
  };
  return { tool, mode: service.currentMode(), decision };
}

/**
 * The remote tool a name stands for, built as the loader builds it, with a client that refuses every
 * call (nothing is connected; the check never runs a tool).
 */
function remoteStandIn(
  toolName: string,
  config: ResolvedConfig,
): { tool: RemoteTool; configured: boolean } | undefined {
  const reference = parseRemoteToolName(toolName, Object.keys(config.mcp_servers));
  if (!reference) return undefined;
  const entry = Object.hasOwn(config.mcp_servers, reference.server)
    ? config.mcp_servers[reference.server]
    : undefined;
  // A public name as typed is kept (it may be a suffixed one); the explicit form gets the plain name.
  const publicName =
    toolName.startsWith('mcp__') && TOOL_NAME_PATTERN.test(toolName)
      ? toolName
      : plainToolName(reference.server, reference.tool);
  const tool = new RemoteTool({
    server: reference.server,
    definition: { name: reference.tool, inputSchema: { type: 'object' } },
    name: publicName,
    category: entry?.category,
    client: {
      callTool: () => Promise.reject(new Error('furfly permissions check never calls a tool')),
    },
  });
  return { tool, configured: entry !== undefined };
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the arguments are not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('the arguments must be a JSON object, e.g. \'{"command":"ls"}\'');
  }
  return value as Record<string, unknown>;
}

function describe(report: CheckReport): string {
  const { tool, decision } = report;
  let what: string;
  if (tool.kind === 'builtin') what = `built-in tool, category ${tool.category}`;
  else if (tool.kind === 'mcp') {
    const where = tool.configured
      ? `category ${tool.category} from its config entry`
      : `server not configured, category ${tool.category}`;
    what = `tool "${tool.original}" of MCP server "${tool.server}" (not connected; ${where})`;
  } else what = `unknown tool, treated as category ${tool.category}`;
  const lines = [
    `${decision.action}: ${decision.reason}`,
    `  tool:       ${tool.name}: ${what}`,
    `  mode:       ${report.mode}`,
    `  decided by: ${decision.source}`,
  ];
  if (tool.identities.length > 1) lines.push(`  rules see:  ${tool.identities.join(', ')}`);
  if (tool.command !== undefined) lines.push(`  command:    ${JSON.stringify(tool.command)}`);
  if (tool.paths.length > 0)
    lines.push(`  paths:      ${tool.paths.map((p) => JSON.stringify(p)).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

export function registerPermissionsCommands(cli: CAC): void {
  cli
    .command(
      'permissions [action] [...rest]',
      "What the agent would decide for a tool call: check <tool> ['<json args>'] [--mode m]",
    )
    .option(
      '--mode <mode>',
      `Decide as in this mode: ${PERMISSION_MODES.join(' | ')} (default: the config's)`,
    )
    .option('--json', 'Print the decision and the facts it used as JSON')
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .example(`furfly permissions check bash '{"command":"rm -rf build"}' --mode auto`)
    .example('furfly permissions check mcp__github__delete_repo --json')
    .action(async (action: string | undefined, rest: unknown[], options: PermissionsCommandOptions) => {
      process.exitCode = await runPermissionsCommand(
        action,
        rest.map((value) => String(value)),
        {
          ...options,
          // cac turns number-like values into numbers; these are names and paths.
          mode: options.mode === undefined ? undefined : String(options.mode),
          cwd: options.cwd === undefined ? undefined : String(options.cwd),
          config: options.config === undefined ? undefined : String(options.config),
        },
        {
          stdout: (text) => process.stdout.write(text),
          stderr: (text) => process.stderr.write(text),
          env: process.env,
          cwd: process.cwd(),
        },
      );
    });
}
