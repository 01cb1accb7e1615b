/**
 * The interactive session's MCP commands, beside the built-in slash commands (slash-commands.ts):
 *
 *   /mcp                      the panel: every server's status, era and version, transport, tools with
 *                             descriptions, prompts, resources, last error with the tail of its stderr
 *   /mcp logs <server>        the server's log (its notifications/message and furfly's lines about it)
 *   /mcp reconnect <server>   close and connect one server again
 *   /resources [server]       resources and templates, as `@server:uri` to paste into a prompt
 *   /mcp__<server>__<prompt> [args]   run a server's prompt: its messages become the next user message
 *   /skills [server]          the skills servers offer (SEP-2640), listed without reading any file
 *   /skill <server> <name> [request]  use a skill: its files are read and verified (size, digest,
 *                             frontmatter; ../../mcp/skills.ts), then its instructions and files become
 *                             the next user message, with the request after them
 *
 * These need requests to the servers, so they are asynchronous, unlike the built-ins. Every text a
 * server sent passes the redactor and then the terminal sanitizer before it is printed.
 */
import type { UserBlock } from '../../agent/messages.js';
import type { AgentRuntime } from '../../agent/runtime.js';
import type { LoaderClient } from '../../mcp/loader.js';
import { parsePromptArguments, splitWords } from '../../mcp/prompt-arguments.js';
import {
  type FeatureClient,
  getPrompt,
  listPrompts,
  listResources,
  listResourceTemplates,
  type PromptInfo,
} from '../../mcp/server-features.js';
import { listSkills, loadSkill, offersSkills, type SkillEntry } from '../../mcp/skills.js';
import { attributedBlock, terminalLine, terminalText } from '../../terminal/sanitize.js';
import { errorText } from '../../util/error-text.js';
import {
  describeResources,
  describeSkills,
  promptContentText,
  promptUsage,
} from '../commands/mcp-features.js';
import { describeServerEvent } from './render.js';

export interface McpCommandContext {
  runtime: AgentRuntime;
  print(text: string): void;
  /**
   * Asks the person one question and returns the typed line; absent when nobody can answer (piped
   * input), where a missing argument is refused instead.
   */
  ask?: (question: string) => Promise<string | undefined>;
}

/** What the session does after an MCP command: nothing more, or send a turn built from a prompt. */
export type McpCommandOutcome = { kind: 'done' } | { kind: 'turn'; text: string; attachments: UserBlock[] };

/** Time allowed for listing a server's prompts or resources from a command (a slow server only delays its own part). */
const LIST_TIMEOUT_MS = 5000;
/** Lines of a server's log shown by /mcp logs. */
const LOG_LINES = 50;
/** Lines of stderr shown with a failed server in the panel. */
const STDERR_LINES = 5;

/** Whether `line` is one of these commands (so the session sends it here rather than to the built-ins). */
export function isMcpCommand(line: string): boolean {
  const word = line.slice(1).split(/\s/, 1)[0] ?? '';
  return (
    word === 'mcp' ||
    word === 'resources' ||
    word === 'skills' ||
    word === 'skill' ||
    word.startsWith('mcp__')
  );
}

/** Lines for /help: the commands here and, per connected server, its prompts as commands. */
export async function mcpHelpLines(runtime: AgentRuntime): Promise<string[]> {
  const lines = [
    "  /mcp [logs|reconnect <server>]  MCP servers: the panel, a server's log, or reconnect one",
    '  /resources [server]  resources to attach with @server:uri in a prompt',
    '  /skills [server]  skills the servers offer; /skill <server> <name> [request] uses one',
  ];
  for (const [server, client] of runtime.mcp.clients) {
    const prompts = await promptsOf(client);
    for (const prompt of prompts ?? []) {
      const summary = terminalLine((prompt.description ?? prompt.title ?? '').split('\n')[0] ?? '');
      lines.push(
        `  ${terminalLine(promptUsage(`/mcp__${server}__${prompt.name}`, prompt))}  ${runtime.redactor.text(summary)}`.trimEnd(),
      );
    }
  }
  return lines;
}

export async function runMcpCommand(line: string, context: McpCommandContext): Promise<McpCommandOutcome> {
  const [word = '', ...rest] = line.slice(1).trim().split(/\s+/);
  if (word === 'resources') {
    await showResources(context, rest[0]);
    return { kind: 'done' };
  }
  if (word === 'skills') {
    await showSkills(context, rest[0]);
    return { kind: 'done' };
  }
  if (word === 'skill') return useSkill(line, rest, context);
  if (word === 'mcp') {
    const [action, server] = rest;
    if (action === undefined) await showPanel(context);
    else if (action === 'logs' && server) showLog(context, server);
    else if (action === 'reconnect' && server) await reconnect(context, server);
    else context.print('Usage: /mcp, /mcp logs <server>, /mcp reconnect <server>');
    return { kind: 'done' };
  }
  return runPromptCommand(line, word, context);
}

function connectedClient(
  context: McpCommandContext,
  server: string,
): (LoaderClient & FeatureClient) | string {
  const { runtime } = context;
  const status = runtime.mcp.statuses().find((s) => s.server === server);
  if (!status) {
    const known = runtime.mcp.statuses().map((s) => terminalLine(s.server));
    return `No MCP server "${terminalLine(server)}"; configured: ${known.join(', ') || 'none'}.`;
  }
  const client = runtime.mcp.clients.get(server);
  if (status.status !== 'ok' || !client?.request || !client.capabilities) {
    return `The MCP server "${terminalLine(server)}" is not connected (${status.status}); /mcp shows why.`;
  }
  return client as LoaderClient & FeatureClient;
}

async function promptsOf(client: LoaderClient): Promise<PromptInfo[] | undefined> {
  if (!client.request || !client.capabilities) return undefined;
  try {
    return await listPrompts(client as LoaderClient & FeatureClient, { timeoutMs: LIST_TIMEOUT_MS });
  } catch {
    return undefined;
  }
}

function failure(context: McpCommandContext, client: LoaderClient, error: unknown, method: string): string {
  return attributedBlock(
    context.runtime.redactor.text(client.describeRequestFailure?.(error, method) ?? errorText(error)),
  );
}

async function showResources(context: McpCommandContext, only: string | undefined): Promise<void> {
  const { runtime, print } = context;
  const servers =
    only === undefined
      ? runtime.mcp
          .statuses()
          .filter((s) => s.status === 'ok')
          .map((s) => s.server)
      : [only];
  if (servers.length === 0) {
    print('No MCP server is connected.');
    return;
  }
  const parts: string[] = [];
  for (const server of servers) {
    const client = connectedClient(context, server);
    if (typeof client === 'string') {
      parts.push(client);
      continue;
    }
    try {
      const resources = await listResources(client, { timeoutMs: LIST_TIMEOUT_MS });
      const templates = await listResourceTemplates(client, { timeoutMs: LIST_TIMEOUT_MS });
      parts.push(
        runtime.redactor
          .text(describeResources(server, resources, templates, !client.capabilities.resources))
          .trimEnd(),
      );
    } catch (error) {
      parts.push(`${terminalLine(server)}: ${failure(context, client, error, 'resources/list')}`);
    }
  }
  print(parts.join('\n'));
}

/**
 * The place for a server's login state once remote servers can log in (OAuth): the line that work
 * returns goes into the panel under the transport. Nothing to say until then.
 */
function loginStateOf(_runtime: AgentRuntime, _server: string): string | undefined {
  return undefined;
}

async function showPanel(context: McpCommandContext): Promise<void> {
  const { runtime, print } = context;
  const statuses = runtime.mcp.statuses();
  if (statuses.length === 0) {
    print('No MCP servers are configured (mcp_servers in .furflycode/config.yaml).');
    return;
  }
  const lines: string[] = [];
  for (const status of statuses) {
    const name = terminalLine(status.server);
    const client = runtime.mcp.clients.get(status.server);
    const state =
      status.status === 'connecting'
        ? 'connecting…'
        : describeServerEvent({ ...status, server: '-', relisted: false }).replace(/^mcp: - /, '');
    lines.push(`${name} (${status.transport}): ${state}`);
    const info = client?.serverInfo;
    const version = client?.protocolVersion ?? status.protocolVersion;
    const era = client?.era ?? status.era;
    const parts: string[] = [];
    if (era !== undefined) parts.push(`${era} era, protocol ${terminalLine(String(version))}`);
    if (info)
      parts.push(
        `server ${terminalLine(runtime.redactor.text(`${info.name} ${info.version ?? ''}`.trim()))}`,
      );
    if (parts.length > 0) lines.push(`  ${parts.join(' · ')}`);
    const login = loginStateOf(runtime, status.server);
    if (login !== undefined) lines.push(`  login: ${terminalLine(login)}`);
    if (status.status === 'ok' && client) {
      lines.push(...toolLines(runtime, status.server));
      lines.push(...(await featureLines(context, client)));
    }
    const lastError = runtime.mcp.lastError(status.server);
    if (lastError !== undefined) {
      lines.push(`  last error: ${terminalText(lastError).replace(/\n/g, '\n    ')}`);
      const stderr = stderrTail(client?.diagnostics?.());
      if (stderr.length > 0)
        lines.push(
          '  stderr (last lines):',
          ...stderr.map((l) => `    ${terminalLine(runtime.redactor.text(l))}`),
        );
    }
  }
  lines.push('Actions: /mcp logs <server>, /mcp reconnect <server>, /resources [server]');
  print(lines.join('\n'));
}

function toolLines(runtime: AgentRuntime, server: string): string[] {
  const tools = runtime.registry
    .names()
    .map(
      (name) =>
        runtime.registry.get(name) as
          | { server?: unknown; description?: string; category?: string }
          | undefined,
    )
    .filter((tool) => tool?.server === server);
  const names = runtime.registry
    .names()
    .filter((name) => (runtime.registry.get(name) as { server?: unknown } | undefined)?.server === server);
  const lines = [`  tools (${names.length}):`];
  names.forEach((name, i) => {
    const tool = tools[i]!;
    const summary = runtime.redactor.text((tool.description ?? '').split('\n')[0]?.trim() ?? '');
    lines.push(
      `    ${terminalLine(name)} [${tool.category ?? 'execute'}]  ${terminalLine(summary.slice(0, 100))}`.trimEnd(),
    );
  });
  return lines;
}

async function featureLines(context: McpCommandContext, client: LoaderClient): Promise<string[]> {
  if (!client.request || !client.capabilities) return [];
  const feature = client as LoaderClient & FeatureClient;
  const lines: string[] = [];
  const redact = (text: string) => context.runtime.redactor.text(text);
  if (client.capabilities.prompts) {
    try {
      const prompts = await listPrompts(feature, { timeoutMs: LIST_TIMEOUT_MS });
      lines.push(
        `  prompts (${prompts.length}): ${prompts.map((p) => terminalLine(redact(p.name))).join(', ') || '-'}`,
      );
    } catch (error) {
      lines.push(`  prompts: ${failure(context, client, error, 'prompts/list')}`);
    }
  }
  if (client.capabilities.resources) {
    try {
      const resources = await listResources(feature, { timeoutMs: LIST_TIMEOUT_MS });
      lines.push(
        `  resources (${resources.length}): ${resources.map((r) => terminalLine(redact(r.uri))).join(', ') || '-'}`,
      );
    } catch (error) {
      lines.push(`  resources: ${failure(context, client, error, 'resources/list')}`);
    }
  }
  return lines;
}

function stderrTail(diagnostics: string | undefined): string[] {
  if (!diagnostics) return [];
  return diagnostics
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-STDERR_LINES);
}

function showLog(context: McpCommandContext, server: string): void {
  const log = context.runtime.mcp.logOf(server);
  if (!log) {
    context.print(`No MCP server "${terminalLine(server)}".`);
    return;
  }
  const entries = log.entries().slice(-LOG_LINES);
  if (entries.length === 0) {
    context.print(`The log of ${terminalLine(server)} is empty.`);
    return;
  }
  const skipped = log.entries().length - entries.length + log.dropped;
  const lines = entries.map((entry) => {
    const time = new Date(entry.time).toISOString().slice(11, 19);
    const logger = entry.logger ? ` ${terminalLine(entry.logger)}` : '';
    return `  ${time} ${entry.level.padEnd(7)}${logger}: ${terminalText(entry.text).replace(/\n/g, '\n    ')}`;
  });
  context.print(
    [
      `Log of ${terminalLine(server)}${skipped > 0 ? ` (last ${entries.length}; ${skipped} older not shown)` : ''}:`,
      ...lines,
    ].join('\n'),
  );
}

async function reconnect(context: McpCommandContext, server: string): Promise<void> {
  const status = context.runtime.mcp.statuses().find((s) => s.server === server);
  if (!status) {
    context.print(`No MCP server "${terminalLine(server)}".`);
    return;
  }
  context.print(`mcp: reconnecting ${terminalLine(server)}…`);
  const event = await context.runtime.mcp.reconnect(server);
  // The outcome is printed by the session's server-event line (as at start); only say when there is none.
  if (event === undefined)
    context.print(`mcp: ${terminalLine(server)} was not reconnected (disabled, or shutting down).`);
}

/**
 * `/mcp__<server>__<prompt> [args]`: arguments by position or name=value; a missing required one is
 * asked for on a terminal and refused in a pipe. The prompt's messages become one user message: user
 * text as it is, assistant text quoted as the server's suggestion, images attached.
 */
async function runPromptCommand(
  line: string,
  word: string,
  context: McpCommandContext,
): Promise<McpCommandOutcome> {
  const { runtime, print } = context;
  const match = /^mcp__(.+?)__(.+)$/.exec(word);
  if (!match) {
    print(`Unknown command /${terminalLine(word)}; /help lists the commands.`);
    return { kind: 'done' };
  }
  const [, server, name] = match as unknown as [string, string, string];
  const client = connectedClient(context, server);
  if (typeof client === 'string') {
    print(client);
    return { kind: 'done' };
  }
  let prompts: PromptInfo[];
  try {
    prompts = await listPrompts(client, { timeoutMs: LIST_TIMEOUT_MS });
  } catch (error) {
    print(`mcp: ${failure(context, client, error, 'prompts/list')}`);
    return { kind: 'done' };
  }
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) {
    print(
      `The server ${terminalLine(server)} has no prompt "${terminalLine(name)}"; its prompts: ${prompts.map((p) => terminalLine(p.name)).join(', ') || 'none'}.`,
    );
    return { kind: 'done' };
  }
  const argumentText = line.slice(1).trim().slice(word.length);
  const parsed = parsePromptArguments(splitWords(argumentText), prompt.arguments);
  const usage = terminalLine(promptUsage(`/${word}`, prompt));
  if (parsed.problems.length > 0) {
    print(`${terminalLine(parsed.problems.join('; '))}. Usage: ${usage}`);
    return { kind: 'done' };
  }
  for (const missing of parsed.missing) {
    if (!context.ask) {
      print(
        `Not run: the prompt needs ${terminalLine(missing)}, and there is nobody to ask in a pipe. Usage: ${usage}`,
      );
      return { kind: 'done' };
    }
    const info = prompt.arguments.find((a) => a.name === missing);
    const about = info?.description ? ` (${terminalLine(runtime.redactor.text(info.description))})` : '';
    const answer = (await context.ask(`${terminalLine(missing)}${about}: `))?.trim();
    if (!answer) {
      print('Not run: a required argument was left empty.');
      return { kind: 'done' };
    }
    parsed.values[missing] = answer;
  }
  let result: Awaited<ReturnType<typeof getPrompt>>;
  try {
    result = await getPrompt(client, prompt.name, parsed.values);
  } catch (error) {
    print(`mcp: ${failure(context, client, error, 'prompts/get')}`);
    return { kind: 'done' };
  }
  const texts: string[] = [];
  const attachments: UserBlock[] = [];
  for (const message of result.messages) {
    const content = message.content;
    if (
      content.type === 'image' &&
      typeof content.data === 'string' &&
      typeof content.mimeType === 'string'
    ) {
      attachments.push({ type: 'image', data: content.data, mimeType: content.mimeType });
      continue;
    }
    const text = promptContentText(content);
    texts.push(message.role === 'assistant' ? `(suggested reply from the prompt)\n${text}` : text);
  }
  // The server's text goes to the model redacted, like a resource's.
  const text = runtime.redactor.text(texts.join('\n\n'));
  if (text.trim() === '' && attachments.length === 0) {
    print(
      `The prompt ${terminalLine(name)} of ${terminalLine(server)} returned no messages; nothing was sent.`,
    );
    return { kind: 'done' };
  }
  print(
    `mcp: prompt ${terminalLine(server)}/${terminalLine(name)} (${result.messages.length} message${result.messages.length === 1 ? '' : 's'}):`,
  );
  return { kind: 'turn', text: text.trim() === '' ? `(prompt ${name})` : text, attachments };
}

async function showSkills(context: McpCommandContext, only: string | undefined): Promise<void> {
  const { runtime, print } = context;
  const servers =
    only === undefined
      ? runtime.mcp
          .statuses()
          .filter((s) => s.status === 'ok')
          .map((s) => s.server)
      : [only];
  let shown = 0;
  for (const server of servers) {
    const client = connectedClient(context, server);
    if (typeof client === 'string') {
      print(client);
      continue;
    }
    if (only === undefined && !offersSkills(client)) continue;
    try {
      // Listing reads no file of any skill (SEP-2640: nothing is retrieved ahead of need).
      const skills = await listSkills(client, { timeoutMs: LIST_TIMEOUT_MS });
      print(runtime.redactor.text(describeSkills(server, skills, !offersSkills(client))).trimEnd());
      shown++;
    } catch (error) {
      print(`mcp: ${failure(context, client, error, 'skills/list')}`);
    }
  }
  if (only === undefined && shown === 0) print('No connected MCP server offers skills.');
}

/**
 * `/skill <server> <name> [request]`: the skill is read and verified only now; a file that fails its
 * size, digest or frontmatter check stops it, and nothing of it reaches the model. Its text goes to the
 * model redacted, like a prompt's or a resource's, marked as the server's.
 */
async function useSkill(
  line: string,
  rest: readonly string[],
  context: McpCommandContext,
): Promise<McpCommandOutcome> {
  const { runtime, print } = context;
  const [server, name] = rest;
  if (server === undefined || name === undefined) {
    print('Usage: /skill <server> <name> [request]; /skills lists them.');
    return { kind: 'done' };
  }
  const client = connectedClient(context, server);
  if (typeof client === 'string') {
    print(client);
    return { kind: 'done' };
  }
  let skills: SkillEntry[];
  try {
    skills = await listSkills(client, { timeoutMs: LIST_TIMEOUT_MS });
  } catch (error) {
    print(`mcp: ${failure(context, client, error, 'skills/list')}`);
    return { kind: 'done' };
  }
  const entry = skills.find((s) => s.name === name);
  if (entry === undefined) {
    print(
      `The server ${terminalLine(server)} has no skill "${terminalLine(name)}"; its skills: ${skills.map((s) => terminalLine(s.name)).join(', ') || 'none'}.`,
    );
    return { kind: 'done' };
  }
  let skill: Awaited<ReturnType<typeof loadSkill>>;
  try {
    skill = await loadSkill(client, entry);
  } catch (error) {
    print(`mcp: ${failure(context, client, error, 'resources/read')}`);
    return { kind: 'done' };
  }
  const request = line.slice(1).trim().split(/\s+/).slice(3).join(' ');
  const parts = [
    `Use the skill "${entry.name}" from the MCP server ${server} (${entry.description}). Its instructions (SKILL.md):`,
    skill.instructions.trim(),
    ...skill.files.slice(1).map((f) => `[skill file ${f.uri}]\n${f.text}`),
    ...(request === '' ? [] : [request]),
  ];
  print(
    `mcp: skill ${terminalLine(server)}/${terminalLine(entry.name)} (${skill.files.length} file${skill.files.length === 1 ? '' : 's'}, verified):`,
  );
  return { kind: 'turn', text: runtime.redactor.text(parts.join('\n\n')), attachments: [] };
}
