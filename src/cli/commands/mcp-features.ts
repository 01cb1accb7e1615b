/**
 * `furfly mcp resources|read|prompts|prompt|skills|skill`: a server's resources, prompts and skills from
 * the shell, and the text forms the interactive session shares (`/resources`, `/mcp__<server>__<prompt>`,
 * `/skills`).
 *
 *   furfly mcp resources <server> [--json]                  resources and resource templates
 *   furfly mcp read      <server> <uri> [--json]            a resource's contents
 *   furfly mcp prompts   <server> [--json]                  prompts and their arguments
 *   furfly mcp prompt    <server> <name> [args…] [--json]   a prompt's messages (args: by position or name=value)
 *   furfly mcp skills    <server> [--json]                  the skills it offers (SEP-2640; nothing is read)
 *   furfly mcp skill     <server> <name> [--json]           a skill's files, each verified first (../../mcp/skills.ts)
 *
 * Everything a server sent is its own text: redacted, then made safe for the terminal, before it is
 * printed. A prompt run from the shell has nobody to ask for a missing argument: it is refused, naming it.
 */
import type { McpClient } from '../../mcp/client.js';
import { parsePromptArguments } from '../../mcp/prompt-arguments.js';
import {
  getPrompt,
  listPrompts,
  listResources,
  listResourceTemplates,
  type PromptInfo,
  type PromptMessage,
  type ResourceContents,
  type ResourceInfo,
  type ResourceTemplateInfo,
  readResource,
} from '../../mcp/server-features.js';
import { listSkills, loadSkill, offersSkills, type SkillEntry } from '../../mcp/skills.js';
import type { Redactor } from '../../redaction/index.js';
import { indentedBlock, terminalLine, terminalSafeJson } from '../../terminal/sanitize.js';

export const FEATURE_ACTIONS = ['resources', 'read', 'prompts', 'prompt', 'skills', 'skill'] as const;
export type FeatureAction = (typeof FEATURE_ACTIONS)[number];

export function isFeatureAction(action: string | undefined): action is FeatureAction {
  return (FEATURE_ACTIONS as readonly string[]).includes(action ?? '');
}

export class FeatureUsageError extends Error {}

export type FeatureRequest =
  | { action: 'resources' }
  | { action: 'prompts' }
  | { action: 'read'; uri: string }
  | { action: 'prompt'; name: string; words: string[] }
  | { action: 'skills' }
  | { action: 'skill'; name: string };

/** The words after the server name, checked before anything connects. */
export function parseFeatureRequest(action: FeatureAction, rest: readonly string[]): FeatureRequest {
  const words = rest.map(String);
  switch (action) {
    case 'resources':
    case 'prompts':
    case 'skills':
      if (words.length > 0) throw new FeatureUsageError(`unexpected argument "${words[0]}"`);
      return { action };
    case 'read':
      if (words.length !== 1) throw new FeatureUsageError('usage: furfly mcp read <server> <uri>');
      return { action, uri: words[0]! };
    case 'prompt':
      if (words.length === 0)
        throw new FeatureUsageError(
          'usage: furfly mcp prompt <server> <name> [args…] (by position or name=value)',
        );
      return { action, name: words[0]!, words: words.slice(1) };
    case 'skill':
      if (words.length !== 1) throw new FeatureUsageError('usage: furfly mcp skill <server> <name>');
      return { action, name: words[0]! };
  }
}

/** The method a feature request's failure is named after. */
export function featureMethod(action: FeatureAction): string {
  if (action === 'read' || action === 'skill') return 'resources/read';
  if (action === 'prompt') return 'prompts/get';
  return `${action}/list`;
}

/** Runs one feature request on a connected client; resolves to the exit code. Throws on request failure. */
export async function runFeatureRequest(
  client: McpClient,
  request: FeatureRequest,
  options: { json?: boolean; timeoutMs?: number },
  io: { stdout(text: string): void; stderr(text: string): void },
  redactor: Redactor,
): Promise<number> {
  const requestOptions = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const print = (value: unknown, text: () => string) =>
    io.stdout(options.json ? `${terminalSafeJson(redactor.value(value), 2)}\n` : redactor.text(text()));
  switch (request.action) {
    case 'resources': {
      const resources = await listResources(client, requestOptions);
      const templates = await listResourceTemplates(client, requestOptions);
      print({ resources, resourceTemplates: templates }, () =>
        describeResources(client.name, resources, templates, !client.capabilities.resources),
      );
      return 0;
    }
    case 'read': {
      const contents = await readResource(client, request.uri, requestOptions);
      print({ contents }, () => describeContents(contents));
      return 0;
    }
    case 'prompts': {
      const prompts = await listPrompts(client, requestOptions);
      print({ prompts }, () => describePrompts(client.name, prompts, !client.capabilities.prompts));
      return 0;
    }
    case 'prompt': {
      const prompts = await listPrompts(client, requestOptions);
      const prompt = prompts.find((p) => p.name === request.name);
      if (!prompt) {
        io.stderr(
          `furfly mcp: server "${terminalLine(client.name)}" has no prompt "${terminalLine(request.name)}"; it has: ${prompts.map((p) => terminalLine(p.name)).join(', ') || 'none'}\n`,
        );
        return 1;
      }
      const parsed = parsePromptArguments(request.words, prompt.arguments);
      const problem = [
        ...parsed.problems,
        ...(parsed.missing.length > 0
          ? [
              `missing required argument${parsed.missing.length === 1 ? '' : 's'}: ${parsed.missing.join(', ')}`,
            ]
          : []),
      ];
      if (problem.length > 0) {
        io.stderr(`furfly mcp: prompt "${terminalLine(prompt.name)}": ${terminalLine(problem.join('; '))}\n`);
        io.stderr(
          `usage: ${terminalLine(promptUsage(`furfly mcp prompt ${client.name} ${prompt.name}`, prompt))}\n`,
        );
        return 2;
      }
      const result = await getPrompt(client, prompt.name, parsed.values, requestOptions);
      print(result, () => describePromptMessages(result.messages));
      return 0;
    }
    case 'skills': {
      const skills = await listSkills(client, requestOptions);
      print({ skills }, () => describeSkills(client.name, skills, !offersSkills(client)));
      return 0;
    }
    case 'skill': {
      const skills = await listSkills(client, requestOptions);
      const entry = skills.find((s) => s.name === request.name);
      if (!entry) {
        io.stderr(
          `furfly mcp: server "${terminalLine(client.name)}" has no skill "${terminalLine(request.name)}"; it has: ${skills.map((s) => terminalLine(s.name)).join(', ') || 'none'}\n`,
        );
        return 1;
      }
      // A failed check rejects (SkillVerificationError): nothing of the skill is printed then.
      const skill = await loadSkill(client, entry, requestOptions);
      print({ name: entry.name, description: entry.description, files: skill.files }, () =>
        skill.files
          .map((f) => `--- ${terminalLine(f.uri)}\n${indentedBlock(f.text.replace(/\n$/, ''))}\n`)
          .join(''),
      );
      return 0;
    }
  }
}

export function describeSkills(server: string, skills: readonly SkillEntry[], notOffered = false): string {
  const name = terminalLine(server);
  if (notOffered) return `${name}: the server offers no skills\n`;
  const lines = [`${name}: ${skills.length} skill${skills.length === 1 ? '' : 's'}`];
  for (const s of skills) {
    const files = `${s.files.length} file${s.files.length === 1 ? '' : 's'}`;
    lines.push(`  ${terminalLine(s.name)}  ${summaryOf(s)} (${files})`.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

/** `name <required> [optional]` for a usage line. */
export function promptUsage(command: string, prompt: PromptInfo): string {
  const args = prompt.arguments.map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`));
  return [command, ...args].join(' ');
}

function summaryOf(item: { title?: string; description?: string }): string {
  const text = [item.title, item.description].filter(Boolean).join(' — ');
  return terminalLine((text.split('\n')[0] ?? '').trim());
}

export function describeResources(
  server: string,
  resources: readonly ResourceInfo[],
  templates: readonly ResourceTemplateInfo[],
  notOffered = false,
): string {
  const name = terminalLine(server);
  if (notOffered) return `${name}: the server offers no resources\n`;
  const lines = [`${name}: ${resources.length} resource${resources.length === 1 ? '' : 's'}`];
  for (const r of resources) {
    const type = r.mimeType ? ` (${terminalLine(r.mimeType)})` : '';
    lines.push(`  @${name}:${terminalLine(r.uri)}${type}  ${summaryOf(r)}`.trimEnd());
  }
  if (templates.length > 0) {
    lines.push(`${name}: ${templates.length} resource template${templates.length === 1 ? '' : 's'}`);
    for (const t of templates)
      lines.push(`  @${name}:${terminalLine(t.uriTemplate)}  ${summaryOf(t)}`.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

export function describeContents(contents: readonly ResourceContents[]): string {
  const parts = contents.map((item) => {
    if (item.text !== undefined) return indentedBlock(item.text.replace(/\n$/, ''));
    const bytes = Math.floor(((item.blob?.length ?? 0) * 3) / 4);
    return `[${terminalLine(item.uri)}: ${terminalLine(item.mimeType ?? 'binary')}, about ${bytes} bytes]`;
  });
  return `${parts.join('\n') || '(no contents)'}\n`;
}

export function describePrompts(server: string, prompts: readonly PromptInfo[], notOffered = false): string {
  const name = terminalLine(server);
  if (notOffered) return `${name}: the server offers no prompts\n`;
  const lines = [`${name}: ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}`];
  for (const p of prompts) {
    lines.push(`  ${terminalLine(promptUsage(`/mcp__${server}__${p.name}`, p))}  ${summaryOf(p)}`.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

/** Each message as `[role]` and its text; other content as one bracketed line. */
export function describePromptMessages(messages: readonly PromptMessage[]): string {
  const parts = messages.map((m) => `[${m.role}]\n${promptContentText(m.content, true)}`);
  return `${parts.join('\n') || '(no messages)'}\n`;
}

/** A prompt message's content as text: its text, an embedded resource's text, or a note of what it is. */
export function promptContentText(content: Record<string, unknown>, forTerminal = false): string {
  // On a terminal every line of the server's text is indented: none can pass for a line of furfly's.
  const safe = (text: string) => (forTerminal ? indentedBlock(text) : text);
  if (content.type === 'text' && typeof content.text === 'string') return safe(content.text);
  if (content.type === 'resource') {
    const resource = content.resource as { uri?: unknown; text?: unknown } | undefined;
    if (typeof resource?.text === 'string')
      return safe(`[resource ${String(resource.uri)}]\n${resource.text}`);
    return `[resource ${forTerminal ? terminalLine(String(resource?.uri)) : String(resource?.uri)}]`;
  }
  const kind = forTerminal ? terminalLine(String(content.type)) : String(content.type);
  return `[${kind} content]`;
}
