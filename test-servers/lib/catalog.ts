/**
 * A couple of resources and prompts, so the conformance checks for those features have something real
 * to list, read and get. Only the well-behaved definition declares them.
 */
import type {
  GetPromptResult,
  PromptArgument,
  ReadResourceResult,
  ResultOf,
} from '../../src/protocol/types.js';
import { ErrorCode, RpcError } from './protocol.js';

type CompleteResult = ResultOf<'completion/complete'>;

export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text: string;
}

export interface PromptEntry {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  render(args: Record<string, string>): string;
}

export const RESOURCES: readonly ResourceEntry[] = [
  {
    uri: 'furfly://test/readme',
    name: 'readme',
    title: 'Read me',
    description: 'A short plain-text note about this server.',
    mimeType: 'text/plain',
    text: 'This is a furfly test server. Its behaviour is known and documented in test-servers/README.md.\n',
  },
  {
    uri: 'furfly://test/config.json',
    name: 'config',
    title: 'Configuration',
    description: 'A small JSON document.',
    mimeType: 'application/json',
    text: '{"answer":42,"tags":["test","fixture"]}',
  },
];

export const PROMPTS: readonly PromptEntry[] = [
  {
    name: 'greeting',
    title: 'Greeting',
    description: 'Greets someone by name.',
    arguments: [{ name: 'name', description: 'Who to greet.', required: true }],
    render: (args) => `Please greet ${args.name} warmly.`,
  },
  {
    name: 'summary',
    title: 'Summary',
    description: 'Asks for a summary of the conversation so far.',
    arguments: [],
    render: () => 'Please summarise our conversation so far.',
  },
];

export function readResource(uri: unknown): ReadResourceResult {
  if (typeof uri !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'params.uri must be a string');
  const resource = RESOURCES.find((entry) => entry.uri === uri);
  if (!resource) throw new RpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
  return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.text }] };
}

export function getPrompt(name: unknown, args: unknown): GetPromptResult {
  if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'params.name must be a string');
  const prompt = PROMPTS.find((entry) => entry.name === name);
  if (!prompt) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  const given: Record<string, string> = {};
  if (args !== undefined) {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new RpcError(ErrorCode.InvalidParams, 'params.arguments must be an object of strings');
    }
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string')
        throw new RpcError(ErrorCode.InvalidParams, `argument "${key}" must be a string`);
      given[key] = value;
    }
  }
  const missing = prompt.arguments.filter((argument) => argument.required && !(argument.name in given));
  if (missing.length > 0) {
    throw new RpcError(ErrorCode.InvalidParams, `missing required argument "${missing[0]!.name}"`);
  }
  return {
    description: prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: prompt.render(given) } }],
  };
}

/** Suggestions for the `name` argument of the `greeting` prompt (completion/complete). */
export const GREETING_NAMES: readonly string[] = ['Ada', 'Alan', 'Barbara', 'Grace', 'Linus', 'Margaret'];

/**
 * completion/complete: the `name` argument of `greeting` completes from GREETING_NAMES by
 * case-insensitive prefix. Any other reference (an unknown prompt, an argument the prompt does not have,
 * a resource template: this server has none) is invalid params, as the completion page lists.
 */
export function complete(params: Record<string, unknown>): CompleteResult {
  const { ref, argument } = params;
  if (!isRecord(ref) || (ref.type !== 'ref/prompt' && ref.type !== 'ref/resource'))
    throw new RpcError(ErrorCode.InvalidParams, 'params.ref must be a ref/prompt or ref/resource');
  if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw new RpcError(ErrorCode.InvalidParams, 'params.argument must have string name and value');
  if (ref.type === 'ref/resource')
    throw new RpcError(ErrorCode.InvalidParams, `Unknown resource template: ${String(ref.uri)}`);
  const prompt = PROMPTS.find((entry) => entry.name === ref.name);
  if (!prompt) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${String(ref.name)}`);
  if (!prompt.arguments.some((entry) => entry.name === argument.name))
    throw new RpcError(ErrorCode.InvalidParams, `Prompt ${prompt.name} has no argument ${argument.name}`);
  const prefix = argument.value.toLowerCase();
  const values =
    prompt.name === 'greeting' ? GREETING_NAMES.filter((name) => name.toLowerCase().startsWith(prefix)) : [];
  return { completion: { values, total: values.length, hasMore: false } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
