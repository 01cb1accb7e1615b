/**
 * The tools every test server offers, modelled on what clients need to exercise: plain text, arithmetic,
 * delays, big payloads, tool-level failure, progress, and structured output.
 */
import type {
  ElicitRequestFormParams,
  InputRequiredResult,
} from '../../src/generated/mcp/2026-07-28/types.js';
import type { CallToolResult, ContentBlock, TextContent } from '../../src/protocol/types.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { digestOf, MODERN_VERSION, ModernErrorCode, signRequestState, verifyRequestState } from './modern.js';
import { isObject, RpcError, wait } from './protocol.js';
import type { ObjectSchema } from './schema-check.js';
import type { TaskSupport } from './tasks.js';

type ImageContent = Extract<ContentBlock, { type: 'image' }>;

/** A tool call's result (the generated `CallToolResult`): text blocks, and images from `pictures`. */
export interface ToolResult extends CallToolResult {
  content: (TextContent | ImageContent)[];
}

/** A modern (2026-07-28) interim result: the client must answer `inputRequests` and retry. */
export type { InputRequiredResult };

/** What a modern request brings beyond its arguments (absent on legacy requests). */
export interface ModernRequestContext {
  clientCapabilities: Record<string, unknown>;
  inputResponses?: unknown;
  requestState?: unknown;
  /** The spec-breaker's `unverified-request-state`: any requestState counts as a genuine second round. */
  trustRequestState?: boolean;
  /**
   * Set by the spec-breaker's `server-requests` defect: ask with a JSON-RPC request to the client (the
   * legacy way, forbidden in the modern era) instead of an InputRequiredResult.
   */
  sendRequest?(method: 'elicitation/create', params: ElicitRequestFormParams): void;
}

export interface ToolContext {
  /** The version of a legacy request; 2025-11-25 (the shapes modern tools share) for a modern one. */
  version: ProtocolVersion;
  modern?: ModernRequestContext;
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
  /** Listed and callable only on modern (2026-07-28) requests. */
  modernOnly?: boolean;
  /** 2025-11-25 `execution.taskSupport`; absent means `forbidden` (no task-augmented calls). */
  taskSupport?: TaskSupport;
  run(
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolResult | InputRequiredResult> | ToolResult | InputRequiredResult;
}

/** Upper bound of the `large` tool, so a typo cannot exhaust memory. */
const MAX_LARGE_BYTES = 64 * 1024 * 1024;

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

export const echoTool: ToolDefinition = {
  name: 'echo',
  taskSupport: 'optional',
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
  taskSupport: 'optional',
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
  taskSupport: 'optional',
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
  taskSupport: 'optional',
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

const NAME_REQUEST_KEY = 'user_name';

/**
 * The multi round-trip tool (modern era only): the first call answers with an InputRequiredResult asking
 * for the user's name through a form elicitation and an HMAC-signed requestState bound to this tool and
 * these arguments; the retry with `inputResponses` and that state completes. Altered, expired or
 * foreign state is refused with -32602. A client without the elicitation capability gets -32021.
 */
export const askNameTool: ToolDefinition = {
  name: 'ask_name',
  title: 'Ask name',
  description: 'Asks the user for their name (an elicitation through MRTR), then greets them.',
  modernOnly: true,
  inputSchema: {
    type: 'object',
    properties: { greeting: { type: 'string', description: 'Greeting word; default "Hello".' } },
    additionalProperties: false,
  },
  run: (args, { modern }) => {
    if (!modern) throw new RpcError(-32601, 'ask_name needs a 2026-07-28 request');
    if (!isObject(modern.clientCapabilities.elicitation)) {
      throw new RpcError(
        ModernErrorCode.MissingRequiredClientCapability,
        'ask_name needs the elicitation capability',
        { requiredCapabilities: { elicitation: {} } },
      );
    }
    const purpose = `tools/call:ask_name@${MODERN_VERSION}`;
    const argsDigest = digestOf(args);
    const round =
      modern.requestState === undefined
        ? 0
        : modern.trustRequestState
          ? 1
          : verifyRequestState(modern.requestState, { purpose, argsDigest });
    const answer = isObject(modern.inputResponses) ? modern.inputResponses[NAME_REQUEST_KEY] : undefined;
    const greeting = (args.greeting as string | undefined) ?? 'Hello';
    if (round > 0 && isObject(answer)) {
      if (answer.action !== 'accept')
        return text(`${greeting}, whoever you are (the user chose ${String(answer.action)}).`);
      const name = isObject(answer.content) ? answer.content.name : undefined;
      if (typeof name !== 'string')
        throw new RpcError(-32602, 'inputResponses.user_name.content.name must be a string');
      return text(`${greeting}, ${name}!`);
    }
    const elicitation: ElicitRequestFormParams = {
      mode: 'form',
      message: 'What is your name?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name' } },
        required: ['name'],
      },
    };
    if (modern.sendRequest) {
      modern.sendRequest('elicitation/create', elicitation);
      return text(`${greeting}, whoever you are (asked with a server-initiated request).`);
    }
    return {
      resultType: 'input_required',
      inputRequests: { [NAME_REQUEST_KEY]: { method: 'elicitation/create', params: elicitation } },
      requestState: signRequestState({ purpose, argsDigest, round: round + 1 }),
    };
  },
};

/**
 * A tool with a parameter mirrored into an HTTP header (`x-mcp-header: Region`, so `Mcp-Param-Region`),
 * modern era only: over HTTP the server checks the header against the argument.
 */
export const regionalEchoTool: ToolDefinition = {
  name: 'regional_echo',
  title: 'Regional echo',
  description: 'Returns "<region>: <message>"; region travels in the Mcp-Param-Region header too.',
  modernOnly: true,
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', description: 'A region name.', 'x-mcp-header': 'Region' },
      message: { type: 'string' },
    },
    required: ['region', 'message'],
    additionalProperties: false,
  },
  run: (args) => text(`${args.region as string}: ${args.message as string}`),
};

/** `--task-tools`: echo that must be called as a task (2025-11-25 tool-level negotiation). */
export const taskEchoTool: ToolDefinition = {
  name: 'task_echo',
  title: 'Task echo',
  description: 'Returns the message after delay_ms (default 0); must be called as a task.',
  minVersion: '2025-11-25',
  taskSupport: 'required',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    },
    required: ['message'],
    additionalProperties: false,
  },
  run: async (args, { signal }) => {
    await wait((args.delay_ms as number | undefined) ?? 0, signal);
    return text(args.message as string);
  },
};

/** `--task-tools`: a tool whose call ends in a JSON-RPC error (-32603), as a task or not. */
export const taskErrorTool: ToolDefinition = {
  name: 'task_error',
  title: 'Task error',
  description: 'Always answers with a JSON-RPC error (-32603 "backend unavailable"); may run as a task.',
  minVersion: '2025-11-25',
  taskSupport: 'optional',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: () => {
    throw new RpcError(-32603, 'backend unavailable');
  },
};

export const TASK_TOOLS: readonly ToolDefinition[] = [taskEchoTool, taskErrorTool];

export const STANDARD_TOOLS: readonly ToolDefinition[] = [
  echoTool,
  addTool,
  slowEchoTool,
  largeTool,
  failTool,
  progressTool,
  structuredTool,
  askNameTool,
  regionalEchoTool,
];
