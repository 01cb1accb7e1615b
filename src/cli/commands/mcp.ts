/**
 * `furfly mcp tools|call`: talk to one MCP server ad hoc, without a config file.
 *
 *   furfly mcp tools --stdio "<command line>" [--json]
 *   furfly mcp call  --stdio "<command line>" <tool> '<json args>' [--json]
 *
 * The command logic (`runMcpCommand`) takes its output streams as arguments so tests can run it
 * in-process; `registerMcpCommands` only connects it to cac and the real process.
 * Exit codes: 0 success, 1 the server failed or the tool returned isError, 2 usage error.
 */
import path from 'node:path';
import type { CAC } from 'cac';
import type { Transport } from '../../jsonrpc/transport.js';
import { McpClient, type McpContent, type McpTool, type ToolCallResult } from '../../mcp/client.js';
import { splitCommandLine } from '../../mcp/command-line.js';
import { StdioTransport } from '../../mcp/transports/stdio/stdio-transport.js';

export interface McpCommandOptions {
  /** `--stdio "<command line>"`: spawn this server (split into words, no shell). */
  readonly stdio?: string | string[];
  readonly json?: boolean;
  /** `--timeout <ms>`: budget for connecting, and again for the call (default 30000). */
  readonly timeout?: number | string;
}

export interface McpCommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const MCP_ACTIONS = ['tools', 'call'] as const;
const DEFAULT_TIMEOUT_MS = 30_000;

class UsageError extends Error {}

/**
 * The one place that turns command options into a transport, so `--http <url>` can be added
 * beside `--stdio` later. `name` is how messages refer to the server: the program and its script,
 * never the rest of the command line (which may hold tokens).
 */
export function transportFromOptions(options: McpCommandOptions): { transport: Transport; name: string } {
  const line = Array.isArray(options.stdio) ? options.stdio.at(-1) : options.stdio;
  if (typeof line !== 'string' || line.trim() === '') {
    throw new UsageError('say which server to talk to: --stdio "<command line>"');
  }
  let words: string[];
  try {
    words = splitCommandLine(line);
  } catch (error) {
    throw new UsageError(`--stdio: ${(error as Error).message}`);
  }
  const [command, ...args] = words;
  if (!command) throw new UsageError('--stdio: the command line is empty');
  // Only a first argument that looks like a script path joins the name; any other word may be a secret.
  const script = args[0] !== undefined && /[/\\]|\.(?:[cm]?[jt]s|py|rb)$/.test(args[0]) ? args[0] : undefined;
  const name = script ? `${path.basename(command)} ${path.basename(script)}` : path.basename(command);
  return { transport: new StdioTransport({ command, args, name }), name };
}

/** Runs one `mcp` action; resolves to the exit code. Never throws. */
export async function runMcpCommand(
  action: string | undefined,
  positionals: readonly string[],
  options: McpCommandOptions,
  io: McpCommandIo,
): Promise<number> {
  let client: McpClient | undefined;
  try {
    if (action !== 'tools' && action !== 'call') {
      throw new UsageError(
        `${action === undefined ? 'missing action' : `unknown action "${action}"`}: use furfly mcp ${MCP_ACTIONS.join(' | ')}`,
      );
    }
    const timeoutMs = parseTimeout(options.timeout);
    const call = action === 'call' ? parseCall(positionals) : undefined;
    if (action === 'tools' && positionals.length > 0)
      throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const { transport, name } = transportFromOptions(options);
    client = new McpClient(transport, { name, requestTimeoutMs: timeoutMs });
    await client.connect({ timeoutMs });

    if (!call) {
      io.stdout(options.json ? `${JSON.stringify(client.tools, null, 2)}\n` : describeTools(client));
      return 0;
    }
    const result = await client.callTool(call.tool, call.args, { timeoutMs });
    io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : describeResult(result));
    return result.isError ? 1 : 0;
  } catch (error) {
    io.stderr(`furfly mcp: ${(error as Error).message}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await client?.close();
  }
}

function parseTimeout(value: McpCommandOptions['timeout']): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new UsageError('--timeout must be a positive number of milliseconds');
  return ms;
}

function parseCall(positionals: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const [tool, json, extra] = positionals;
  if (tool === undefined)
    throw new UsageError(`usage: furfly mcp call --stdio "<command line>" <tool> '<json args>'`);
  if (extra !== undefined)
    throw new UsageError(`unexpected argument "${extra}" (quote the JSON arguments as one word)`);
  if (json === undefined) return { tool: String(tool), args: {} };
  let args: unknown;
  try {
    args = JSON.parse(String(json));
  } catch (error) {
    throw new UsageError(`the tool arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UsageError('the tool arguments must be a JSON object, e.g. \'{"message":"hi"}\'');
  }
  return { tool: String(tool), args: args as Record<string, unknown> };
}

function describeTools(client: McpClient): string {
  const server = client.serverInfo;
  const header = `${server?.name ?? client.name} ${server?.version ?? ''} (protocol ${client.protocolVersion}): ${client.tools.length} tool${client.tools.length === 1 ? '' : 's'}`;
  const width = Math.max(0, ...client.tools.map((tool) => tool.name.length));
  const lines = client.tools.map((tool: McpTool) => {
    const summary = (tool.description ?? '').split('\n')[0]?.trim() ?? '';
    return `  ${tool.name.padEnd(width)}  ${summary}`.trimEnd();
  });
  return `${[header, ...lines].join('\n')}\n`;
}

function describeResult(result: ToolCallResult): string {
  const parts = result.content.map(describeContent);
  if (result.structuredContent !== undefined && !result.content.some((block) => block.type === 'text')) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (parts.length === 0) parts.push(result.isError ? '(error without content)' : '(no content)');
  return `${parts.join('\n')}\n`;
}

function describeContent(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio': {
      const bytes = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0;
      return `[${block.type}: ${String(block.mimeType)}, about ${bytes} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${String(block.uri)}]`;
    case 'resource': {
      const resource = block.resource as { uri?: string; text?: string } | undefined;
      return typeof resource?.text === 'string' ? resource.text : `[resource: ${String(resource?.uri)}]`;
    }
    default:
      return `[${block.type} content]`;
  }
}

export function registerMcpCommands(cli: CAC): void {
  cli
    .command('mcp [action] [...args]', 'Talk to one MCP server: tools | call <tool> <json args>')
    .option('--stdio <command>', 'Start the server with this command line (split into words, no shell)')
    .option('--json', 'Print JSON')
    .option('--timeout <ms>', 'Time allowed to connect, and again for the call', {
      default: DEFAULT_TIMEOUT_MS,
    })
    .example(`furfly mcp tools --stdio "npx -y @modelcontextprotocol/server-everything stdio"`)
    .example(`furfly mcp call --stdio "node server.js" echo '{"message":"hi"}'`)
    .action(async (action: string | undefined, args: string[], options: McpCommandOptions) => {
      process.exitCode = await runMcpCommand(action, args, options, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    });
}
