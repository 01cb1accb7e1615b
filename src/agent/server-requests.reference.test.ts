/**
 * Interop: servers built on the reference SDKs ask, as real processes, and furfly answers through the
 * same handlers as ever. SDK v1 (2025-11-25) sends its own `elicitation/create` (form and URL),
 * `sampling/createMessage` and `roots/list` requests and parses furfly's answers with its own schemas (a
 * malformed answer would fail the tool); SDK v2 (2026-07-28) asks through `input_required` results.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath } from '../../test-servers/testing.js';
import type { ResolvedServer } from '../config/types.js';
import { McpClient } from '../mcp/client.js';
import { ClientRoots } from '../mcp/server-requests/roots.js';
import { StdioTransport } from '../mcp/transports/stdio/stdio-transport.js';
import { Redactor } from '../redaction/index.js';
import type { ModelProvider, ModelResponse } from './provider/types.js';
import { type ServerRequestPrompter, serverRequestSetup } from './server-requests.js';

const clients: McpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

const model: ModelProvider = {
  name: 'scripted',
  model: 'claude-test',
  async complete() {
    return {
      content: [{ type: 'text', text: 'Green bar at dawn' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    } satisfies ModelResponse;
  },
};

/** A person who fills in only what is required, accepts links, and approves the model once. */
const person: ServerRequestPrompter = {
  elicitation: {
    form: async (question) => ({
      action: 'accept',
      answers: Object.fromEntries(
        question.fields
          .filter((f) => f.required)
          .map((f) => [f.key, f.kind === 'boolean' ? true : '2027-01-15']),
      ),
    }),
    url: async () => 'accept',
  },
  sampling: { approve: async () => 'once', showReply: () => {} },
};

async function connect(script: string, args: string[], protocolVersion?: '2026-07-28') {
  const setup = serverRequestSetup({
    provider: model,
    redactor: new Redactor([]),
    roots: new ClientRoots(['/work/project']),
    prompter: person,
    notice: () => {},
  })('reference', { type: 'stdio', command: 'node' } as unknown as ResolvedServer);
  const client = new McpClient(
    new StdioTransport({ command: process.execPath, args: [serverPath(script), ...args], name: 'reference' }),
    { name: 'reference', ...setup, ...(protocolVersion ? { protocolVersion } : {}) },
  );
  clients.push(client);
  await client.connect({ timeoutMs: 20_000 });
  return client;
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('reference SDK servers ask furfly', { timeout: 60_000 }, () => {
  it('SDK v1: a form (defaults applied), a link, the model and the roots, each accepted by the SDK', async () => {
    const client = await connect('reference/sdk-v1-asking', []);
    expect(client.era).toBe('legacy');
    const book = await client.callTool('book');
    expect(book.isError).toBe(false);
    expect(JSON.parse(textOf(book))).toEqual({
      action: 'accept',
      content: { guests: 2, date: '2027-01-15', seating: 'inside' },
    });
    expect(JSON.parse(textOf(await client.callTool('connect')))).toEqual({ action: 'accept' });
    const haiku = JSON.parse(textOf(await client.callTool('haiku')));
    expect(haiku).toMatchObject({
      role: 'assistant',
      model: 'claude-test',
      content: { type: 'text', text: 'Green bar at dawn' },
    });
    expect(JSON.parse(textOf(await client.callTool('roots')))).toEqual({
      roots: [{ uri: 'file:///work/project', name: 'project' }],
    });
  });

  it('SDK v2 (2026-07-28): its input_required elicitation and roots/list are answered by the same handlers', async () => {
    const client = await connect('reference/sdk-v2', ['--era', 'modern'], '2026-07-28');
    expect(client.era).toBe('modern');
    // The form has one required boolean, which this person sets to true.
    expect(textOf(await client.callTool('confirm', { action: 'deploy' }))).toBe('confirmed deploy');
    expect(textOf(await client.callTool('roots_count'))).toBe('1 roots');
  });
});
