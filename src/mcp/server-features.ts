/**
 * The server features besides tools, as the agent and `furfly mcp` use them: resources (list, templates,
 * read), prompts (list, get), argument completion and the log level. Thin functions over
 * `McpClient.request`, which puts each request in its era's envelope; paging and the shapes the rest of
 * furfly needs live here. Each function rejects on failure; callers word the failure for their reader.
 */
import type { RequestOptions } from '../jsonrpc/peer.js';
import { isObject } from '../util/is-object.js';

/** The part of McpClient these functions need (a fake in tests). */
export interface FeatureClient {
  readonly name: string;
  capabilities: Record<string, unknown>;
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
}

export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One item of `resources/read`: text, or binary data as base64. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

export interface PromptArgumentInfo {
  name: string;
  description?: string;
  required: boolean;
}

export interface PromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgumentInfo[];
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  /** The message's content block as the server sent it (text, image, audio, resource...). */
  content: Record<string, unknown>;
}

/** Stop following `nextCursor` after this many pages: a server whose cursor never ends is cut off. */
const MAX_PAGES = 100;

/** The syslog levels of `logging/setLevel` and `notifications/message`, least severe first. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether the server says it has this feature (`resources`, `prompts`, `logging`, `completions`). */
export function offers(client: Pick<FeatureClient, 'capabilities'>, feature: string): boolean {
  return isObject(client.capabilities[feature]);
}

async function listAll(
  client: FeatureClient,
  method: string,
  key: string,
  options: RequestOptions,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(method, cursor === undefined ? {} : { cursor }, options);
    const list = result[key];
    if (!Array.isArray(list)) throw new Error(`${method}: the result has no "${key}" list`);
    for (const item of list) if (isObject(item)) items.push(item);
    const next = result.nextCursor;
    if (typeof next !== 'string' || seen.has(next)) return items;
    seen.add(next);
    cursor = next;
  }
  return items;
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export async function listResources(
  client: FeatureClient,
  options: RequestOptions = {},
): Promise<ResourceInfo[]> {
  if (!offers(client, 'resources')) return [];
  const items = await listAll(client, 'resources/list', 'resources', options);
  return items
    .filter((item) => typeof item.uri === 'string')
    .map((item) => ({
      uri: item.uri as string,
      name: typeof item.name === 'string' ? item.name : (item.uri as string),
      title: optionalText(item.title),
      description: optionalText(item.description),
      mimeType: optionalText(item.mimeType),
    }));
}

export async function listResourceTemplates(
  client: FeatureClient,
  options: RequestOptions = {},
): Promise<ResourceTemplateInfo[]> {
  if (!offers(client, 'resources')) return [];
  const items = await listAll(client, 'resources/templates/list', 'resourceTemplates', options);
  return items
    .filter((item) => typeof item.uriTemplate === 'string')
    .map((item) => ({
      uriTemplate: item.uriTemplate as string,
      name: typeof item.name === 'string' ? item.name : (item.uriTemplate as string),
      title: optionalText(item.title),
      description: optionalText(item.description),
      mimeType: optionalText(item.mimeType),
    }));
}

export async function readResource(
  client: FeatureClient,
  uri: string,
  options: RequestOptions = {},
): Promise<ResourceContents[]> {
  const result = await client.request('resources/read', { uri }, options);
  if (!Array.isArray(result.contents)) throw new Error('resources/read: the result has no "contents" list');
  return result.contents.filter(isObject).map((item) => ({
    uri: typeof item.uri === 'string' ? item.uri : uri,
    mimeType: optionalText(item.mimeType),
    ...(typeof item.text === 'string' ? { text: item.text } : {}),
    ...(typeof item.blob === 'string' ? { blob: item.blob } : {}),
  }));
}

export async function listPrompts(
  client: FeatureClient,
  options: RequestOptions = {},
): Promise<PromptInfo[]> {
  if (!offers(client, 'prompts')) return [];
  const items = await listAll(client, 'prompts/list', 'prompts', options);
  return items
    .filter((item) => typeof item.name === 'string')
    .map((item) => ({
      name: item.name as string,
      title: optionalText(item.title),
      description: optionalText(item.description),
      arguments: (Array.isArray(item.arguments) ? item.arguments : [])
        .filter((arg): arg is Record<string, unknown> => isObject(arg) && typeof arg.name === 'string')
        .map((arg) => ({
          name: arg.name as string,
          description: optionalText(arg.description),
          required: arg.required === true,
        })),
    }));
}

export async function getPrompt(
  client: FeatureClient,
  name: string,
  args: Record<string, string>,
  options: RequestOptions = {},
): Promise<{ description?: string; messages: PromptMessage[] }> {
  const result = await client.request('prompts/get', { name, arguments: args }, options);
  if (!Array.isArray(result.messages)) throw new Error('prompts/get: the result has no "messages" list');
  const messages = result.messages
    .filter(isObject)
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && isObject(m.content))
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content as Record<string, unknown> }));
  return { description: optionalText(result.description), messages };
}

/**
 * `completion/complete` for one argument of a resource template (`ref/resource`) or a prompt
 * (`ref/prompt`): the server's suggestions for `value`, or none when it does not offer completions.
 */
export async function completeArgument(
  client: FeatureClient,
  ref: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string },
  argument: { name: string; value: string },
  options: RequestOptions = {},
): Promise<string[]> {
  if (!offers(client, 'completions')) return [];
  const result = await client.request('completion/complete', { ref, argument }, options);
  const values = isObject(result.completion) ? result.completion.values : undefined;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string').slice(0, 100) : [];
}
