/**
 * A server that asks its client questions, in both eras on one stdio process: a 2025 client (after
 * `initialize`) gets the server's own JSON-RPC requests (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`); a 2026-07-28 client (requests with `_meta` protocolVersion) gets `input_required`
 * results carrying the same requests, and retries with `inputResponses`. Hand-written and standalone
 * (not on lib/), because the lib core never sends a request of its own.
 *
 *   node dist/test-servers/asking.js [--record FILE] [--ignore-capabilities] [--era legacy|modern|dual]
 *
 * --era                   which eras it serves (default dual); legacy answers every modern request,
 *                         `server/discover` included, with -32601, so a client falls back to initialize
 * --record FILE           append every received message as one JSON line
 * --ignore-capabilities   ask even when the client did not declare the capability (a misbehaving
 *                         server; how furfly answers one in one-shot mode is tested with it)
 *
 * Tools (each answers with one text block; `isError` when the client refused):
 *   ask_form {}             elicitation form: name* (string, 1..40), email (email, default), age
 *                           (integer 0..150, default 36), subscribe (boolean, default true), colour
 *                           (titled enum, default g), size (untitled enum), toppings (titled multi-select,
 *                           default [cheese], at most 2); answers `{"action":...,"content":...}` as JSON
 *   ask_url {url?}          elicitation URL mode (default https://example.com/connect?step=1); answers
 *                           the action
 *   sample {prompt}         sampling: one user message, a system prompt, hint claude-3-haiku, maxTokens 100;
 *                           answers `model=<model> stop=<stopReason> text=<text>`
 *   sample_tools {city}     sampling with tools (get_weather): a toolUse reply is answered with a tool
 *                           result (`sunny in <city>`) and sampled again; answers the final text
 *   list_roots {}           roots/list; answers the roots as JSON
 *   capabilities {}         the client capabilities it declared (legacy: at initialize; modern: this request)
 *   roots_changes {}        how many notifications/roots/list_changed arrived
 */
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const recordFile = args.includes('--record') ? args[args.indexOf('--record') + 1] : undefined;
const ignoreCapabilities = args.includes('--ignore-capabilities');
const era = args.includes('--era') ? args[args.indexOf('--era') + 1] : 'dual';
const LEGACY_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'];
const MODERN = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

type Json = Record<string, unknown>;
let legacyCapabilities: Json = {};
let rootsChanges = 0;
let nextId = 1;
const waiting = new Map<string, (message: Json) => void>();

function send(message: Json): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

const FORM_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Your name', minLength: 1, maxLength: 40 },
    email: { type: 'string', title: 'Email', format: 'email', default: 'ada@example.com' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 36 },
    subscribe: { type: 'boolean', title: 'Subscribe', default: true },
    colour: {
      type: 'string',
      title: 'Colour',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
        { const: 'b', title: 'Blue' },
      ],
      default: 'g',
    },
    size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l'] },
    toppings: {
      type: 'array',
      title: 'Toppings',
      maxItems: 2,
      items: {
        anyOf: [
          { const: 'cheese', title: 'Cheese' },
          { const: 'ham', title: 'Ham' },
          { const: 'olives', title: 'Olives' },
        ],
      },
      default: ['cheese'],
    },
  },
  required: ['name'],
};

const TOOLS = [
  { name: 'ask_form', description: 'Asks the user to fill in a form', inputSchema: { type: 'object' } },
  {
    name: 'ask_url',
    description: 'Asks the user to open a link',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
  },
  {
    name: 'sample',
    description: 'Asks the client model a question',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'sample_tools',
    description: 'Asks the client model with a tool it may use',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'list_roots', description: 'Lists the client roots', inputSchema: { type: 'object' } },
  { name: 'capabilities', description: 'The declared client capabilities', inputSchema: { type: 'object' } },
  {
    name: 'roots_changes',
    description: 'Counts roots list_changed notifications',
    inputSchema: { type: 'object' },
  },
];

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** One question for the client: a method and params, and what the tool makes of the answer. */
type Step =
  | { ask: { method: string; params: Json }; capability: string; next: (answer: Json) => Step }
  | { done: string; isError?: boolean };

function sampleParams(prompt: string): Json {
  return {
    messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
    systemPrompt: 'You are terse.',
    modelPreferences: { hints: [{ name: 'claude-3-haiku' }] },
    maxTokens: 100,
  };
}

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => ((b as Json)?.type === 'text' ? String((b as Json).text) : '')).join('');
}

/** The tool as a sequence of questions; `capabilities` is what the client declared for this call. */
function toolSteps(name: string, toolArgs: Json, capabilities: Json): Step {
  switch (name) {
    case 'ask_form':
      return {
        ask: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Tell us about you', requestedSchema: FORM_SCHEMA },
        },
        capability: 'elicitation',
        next: (answer) => ({ done: JSON.stringify(answer) }),
      };
    case 'ask_url':
      return {
        ask: {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: 'Connect your account',
            url: typeof toolArgs.url === 'string' ? toolArgs.url : 'https://example.com/connect?step=1',
            elicitationId: 'el-1',
          },
        },
        capability: 'elicitation',
        next: (answer) => ({ done: `action=${String(answer.action)}` }),
      };
    case 'sample':
      return {
        ask: { method: 'sampling/createMessage', params: sampleParams(String(toolArgs.prompt)) },
        capability: 'sampling',
        next: (answer) => ({
          done: `model=${String(answer.model)} stop=${String(answer.stopReason)} text=${textOf(answer.content)}`,
        }),
      };
    case 'sample_tools': {
      const city = String(toolArgs.city);
      const first: Json = {
        ...sampleParams(`What is the weather in ${city}?`),
        tools: [WEATHER_TOOL],
        toolChoice: { mode: 'auto' },
      };
      return {
        ask: { method: 'sampling/createMessage', params: first },
        capability: 'sampling',
        next: (answer) => {
          const uses = (Array.isArray(answer.content) ? answer.content : [answer.content]).filter(
            (b) => (b as Json)?.type === 'tool_use',
          ) as Json[];
          if (uses.length === 0) return { done: `no tool use: ${textOf(answer.content)}` };
          const second: Json = {
            ...first,
            messages: [
              ...(first.messages as unknown[]),
              { role: 'assistant', content: uses },
              {
                role: 'user',
                content: uses.map((use) => ({
                  type: 'tool_result',
                  toolUseId: use.id,
                  content: [{ type: 'text', text: `sunny in ${String((use.input as Json)?.city)}` }],
                })),
              },
            ],
          };
          return {
            ask: { method: 'sampling/createMessage', params: second },
            capability: 'sampling',
            next: (final) => ({ done: `after ${String(uses[0]!.name)}: ${textOf(final.content)}` }),
          };
        },
      };
    }
    case 'list_roots':
      return {
        ask: { method: 'roots/list', params: {} },
        capability: 'roots',
        next: (answer) => ({ done: JSON.stringify(answer.roots) }),
      };
    case 'capabilities':
      return { done: JSON.stringify(capabilities) };
    case 'roots_changes':
      return { done: String(rootsChanges) };
    default:
      return { done: `unknown tool ${name}`, isError: true };
  }
}

function toolResult(step: Extract<Step, { done: string }>): Json {
  return { content: [{ type: 'text', text: step.done }], isError: step.isError === true };
}

// ---------------------------------------------------------------- legacy: the server's own requests

function askClient(method: string, params: Json): Promise<Json> {
  const id = `ask-${nextId++}`;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ id, method, params });
  });
}

async function legacyCall(id: unknown, name: string, toolArgs: Json): Promise<void> {
  let step = toolSteps(name, toolArgs, legacyCapabilities);
  while ('ask' in step) {
    if (!ignoreCapabilities && legacyCapabilities[step.capability] === undefined) {
      step = { done: `the client did not declare ${step.capability}`, isError: true };
      break;
    }
    const reply = await askClient(step.ask.method, step.ask.params);
    if (reply.error !== undefined) {
      const error = reply.error as Json;
      step = { done: `error ${String(error.code)}: ${String(error.message)}`, isError: true };
      break;
    }
    step = step.next(reply.result as Json);
  }
  send({ id, result: toolResult(step) });
}

// ---------------------------------------------------------------- modern: input_required rounds

interface RoundState {
  tool: string;
  args: Json;
  answers: Json[];
}

function modernCall(id: unknown, params: Json, capabilities: Json): void {
  const name = String(params.name);
  const toolArgs = (params.arguments as Json | undefined) ?? {};
  let state: RoundState = { tool: name, args: toolArgs, answers: [] };
  if (typeof params.requestState === 'string') {
    state = JSON.parse(Buffer.from(params.requestState, 'base64url').toString('utf8')) as RoundState;
    const responses = params.inputResponses as Json | undefined;
    if (responses?.q !== undefined) state.answers.push(responses.q as Json);
  }
  // Replay the answers so far; the first question without one is asked.
  let step = toolSteps(state.tool, state.args, capabilities);
  for (const answer of state.answers) {
    if (!('ask' in step)) break;
    step = step.next(answer);
  }
  if ('ask' in step) {
    if (!ignoreCapabilities && capabilities[step.capability] === undefined) {
      send({
        id,
        error: {
          code: -32021,
          message: 'Missing required client capability',
          data: { requiredCapabilities: { [step.capability]: {} } },
        },
      });
      return;
    }
    send({
      id,
      result: {
        resultType: 'input_required',
        inputRequests: { q: step.ask },
        requestState: Buffer.from(JSON.stringify(state)).toString('base64url'),
      },
    });
    return;
  }
  send({ id, result: { resultType: 'complete', ...toolResult(step) } });
}

// ---------------------------------------------------------------- dispatch

function handle(message: Json): void {
  if (recordFile) appendFileSync(recordFile, `${JSON.stringify(message)}\n`);
  const { id, method } = message;
  const params = (message.params as Json | undefined) ?? {};
  if (method === undefined && typeof id === 'string' && waiting.has(id)) {
    const resolve = waiting.get(id)!;
    waiting.delete(id);
    resolve(message);
    return;
  }
  if (method === 'notifications/roots/list_changed') rootsChanges++;
  if (id === undefined || typeof method !== 'string') return;
  const meta = params._meta as Json | undefined;
  if (meta?.[META_VERSION] !== undefined && era === 'legacy') {
    send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
    return;
  }
  if (meta?.[META_VERSION] === undefined && era === 'modern' && method !== 'ping') {
    send({
      id,
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN] } },
    });
    return;
  }
  if (meta?.[META_VERSION] !== undefined) {
    const capabilities = (meta[META_CAPABILITIES] as Json | undefined) ?? {};
    if (method === 'server/discover') {
      send({
        id,
        result: {
          resultType: 'complete',
          supportedVersions: [MODERN, ...LEGACY_VERSIONS],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'furfly-test-asking', version: '1.0.0' } },
        },
      });
    } else if (method === 'tools/list') send({ id, result: { resultType: 'complete', tools: TOOLS } });
    else if (method === 'tools/call') modernCall(id, params, capabilities);
    else send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
    return;
  }
  if (method === 'initialize') {
    legacyCapabilities = (params.capabilities as Json | undefined) ?? {};
    const requested = String(params.protocolVersion);
    send({
      id,
      result: {
        protocolVersion: LEGACY_VERSIONS.includes(requested) ? requested : '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'furfly-test-asking', version: '1.0.0' },
      },
    });
  } else if (method === 'tools/list') send({ id, result: { tools: TOOLS } });
  else if (method === 'tools/call')
    void legacyCall(id, String(params.name), (params.arguments as Json | undefined) ?? {});
  else if (method === 'ping') send({ id, result: {} });
  else send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  try {
    handle(JSON.parse(line) as Json);
  } catch (error) {
    process.stderr.write(`asking: ${String(error)}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
