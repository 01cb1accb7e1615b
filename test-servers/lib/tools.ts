/**
 * The tools every test server offers, modelled on what clients need to exercise: plain text, arithmetic,
 * delays, big payloads, tool-level failure, progress, and structured output.
 */
import type { CallToolResult, ContentBlock, TextContent } from '../../src/protocol/types.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { wait } from './protocol.js';
import type { ObjectSchema } from './schema-check.js';

type ImageContent = Extract<ContentBlock, { type: 'image' }>;

/** A tool call's result (the generated `CallToolResult`): text blocks, and images from `pictures`. */
export interface ToolResult extends CallToolResult {
  content: (TextContent | ImageContent)[];
}

export interface ToolContext {
  version: ProtocolVersion;
  /** Aborts when the client cancels the call or the session ends. */
  signal: AbortSignal;
  /** Sends notifications/progress when the request carried a progressToken; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
}

export interface ToolDefinition {
  name: string;
  /** Sent as `title` from 2025-06-18 on (the field does not exist before). */
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  /** Listed and callable only from this version on. */
  minVersion?: ProtocolVersion;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> | ToolResult;
}

/** Upper bound of the `large` tool, so a typo cannot exhaust memory. */
const MAX_LARGE_BYTES = 64 * 1024 * 1024;

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

export const echoTool: ToolDefinition = {
  name: 'echo',
  title: 'Echo',
  description: 'Returns the given message unchanged.',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Text to send back.' } },
    required: ['message'],
    additionalProperties: false,
  },
  run: (args) => text(args.message as string),
};

export const addTool: ToolDefinition = {
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers and returns the sum as text.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  run: (args) => text(String((args.a as number) + (args.b as number))),
};

export const slowEchoTool: ToolDefinition = {
  name: 'slow_echo',
  title: 'Slow echo',
  description: 'Waits delay_ms milliseconds, then returns the message. Cancellation stops the wait.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    },
    required: ['message', 'delay_ms'],
    additionalProperties: false,
  },
  run: async (args, { signal }) => {
    await wait(args.delay_ms as number, signal);
    return text(args.message as string);
  },
};

export const largeTool: ToolDefinition = {
  name: 'large',
  title: 'Large',
  description: 'Returns one text block of exactly `bytes` ASCII characters ("x").',
  inputSchema: {
    type: 'object',
    properties: { bytes: { type: 'integer', minimum: 0, maximum: MAX_LARGE_BYTES } },
    required: ['bytes'],
    additionalProperties: false,
  },
  run: (args) => text('x'.repeat(args.bytes as number)),
};

export const failTool: ToolDefinition = {
  name: 'fail',
  title: 'Fail',
  description: 'Always fails: returns a tool result with isError true.',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Error text; a default is used when absent.' } },
    additionalProperties: false,
  },
  run: (args) => ({
    content: [{ type: 'text', text: (args.message as string | undefined) ?? 'this tool always fails' }],
    isError: true,
  }),
};

export const progressTool: ToolDefinition = {
  name: 'progress',
  title: 'Progress',
  description:
    'Counts from 1 to `steps`, waiting interval_ms before each step and sending notifications/progress ' +
    'for each when the request has a progressToken.',
  inputSchema: {
    type: 'object',
    properties: {
      steps: { type: 'integer', minimum: 1, maximum: 1000 },
      interval_ms: { type: 'integer', minimum: 0, maximum: 60_000 },
    },
    required: ['steps'],
    additionalProperties: false,
  },
  run: async (args, { signal, progress }) => {
    const steps = args.steps as number;
    const interval = (args.interval_ms as number | undefined) ?? 10;
    for (let step = 1; step <= steps; step++) {
      await wait(interval, signal);
      progress(step, steps, `step ${step} of ${steps}`);
    }
    return text(`completed ${steps} steps`);
  },
};

export const structuredTool: ToolDefinition = {
  name: 'structured',
  title: 'Structured',
  description:
    'Describes a text: returns structuredContent matching its outputSchema, and the same as JSON text.',
  minVersion: '2025-06-18',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      length: { type: 'integer' },
      upper: { type: 'string' },
    },
    required: ['text', 'length', 'upper'],
    additionalProperties: false,
  },
  run: (args) => {
    const value = args.text as string;
    const structuredContent = { text: value, length: value.length, upper: value.toUpperCase() };
    // The spec asks tools with structured output to also send it serialised in a text block.
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  },
};

export const STANDARD_TOOLS: readonly ToolDefinition[] = [
  echoTool,
  addTool,
  slowEchoTool,
  largeTool,
  failTool,
  progressTool,
  structuredTool,
];
