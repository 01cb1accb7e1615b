/**
 * One path for both eras, against a real process: the `asking` test server asks its questions as its
 * own JSON-RPC requests to a 2025 client and as `input_required` results to a 2026-07-28 one; the same
 * handlers (serverRequestSetup: elicitation, sampling, roots) answer both, with a scripted person and a
 * scripted model. Also: what is declared per version, what one-shot mode answers, roots list_changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serverPath } from '../../test-servers/testing.js';
import type { ResolvedServer } from '../config/types.js';
import { McpClient } from '../mcp/client.js';
import type { FormQuestion, UrlQuestion } from '../mcp/server-requests/elicitation.js';
import { ClientRoots } from '../mcp/server-requests/roots.js';
import { StdioTransport } from '../mcp/transports/stdio/stdio-transport.js';
import { Redactor } from '../redaction/index.js';
import { waitFor } from '../util/wait-for.test-helpers.js';
import type { ModelProvider, ModelRequest, ModelResponse } from './provider/types.js';
import type { SamplingApproval, SamplingQuestion, SamplingReply } from './sampling.js';
import { type ServerRequestPrompter, serverRequestSetup } from './server-requests.js';

const SECRET = 'sk-test-secret-value-0123456789';
const clients: McpClient[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A model that answers each request with the next scripted response, and keeps the requests. */
function scriptedModel(responses: ModelResponse['content'][]) {
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    name: 'scripted',
    model: 'claude-test',
    async complete(request) {
      requests.push(request);
      const content = responses.shift() ?? [{ type: 'text', text: 'no script left' }];
      return {
        content,
        stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      } as unknown as ModelResponse;
    },
  };
  return { provider, requests };
}

interface Person {
  forms: FormQuestion[];
  urls: UrlQuestion[];
  samplings: SamplingQuestion[];
  replies: SamplingReply[];
  prompter: ServerRequestPrompter;
}

function person(answers: {
  form?: (q: FormQuestion) => Awaited<ReturnType<ServerRequestPrompter['elicitation']['form']>>;
  url?: 'accept' | 'decline' | 'cancel';
  sampling?: SamplingApproval[];
}): Person {
  const seen: Person = {
    forms: [],
    urls: [],
    samplings: [],
    replies: [],
    prompter: {
      elicitation: {
        form: async (q) => {
          seen.forms.push(q);
          return answers.form?.(q) ?? { action: 'cancel' };
        },
        url: async (q) => {
          seen.urls.push(q);
          return answers.url ?? 'decline';
        },
      },
      sampling: {
        approve: async (q) => {
          seen.samplings.push(q);
          return answers.sampling?.shift() ?? 'deny';
        },
        showReply: (reply) => seen.replies.push(reply),
      },
    },
  };
  return seen;
}

async function connect(
  version: '2025-11-25' | '2025-06-18' | '2026-07-28',
  options: {
    prompter: ServerRequestPrompter | undefined;
    provider?: ModelProvider;
    sampling?: 'ask' | 'allow' | 'deny';
    roots?: ClientRoots;
    notices?: string[];
    serverArgs?: string[];
  },
) {
  const roots = options.roots ?? new ClientRoots(['/work/project']);
  const setup = serverRequestSetup({
    provider: options.provider ?? scriptedModel([]).provider,
    redactor: new Redactor([SECRET]),
    roots,
    prompter: options.prompter,
    notice: (text) => options.notices?.push(text),
  });
  const server = { type: 'stdio', command: 'node', sampling: options.sampling } as unknown as ResolvedServer;
  const { inputHandlers, capabilitiesFor } = setup('asker', server);
  const transport = new StdioTransport({
    command: process.execPath,
    args: [serverPath('asking'), ...(options.serverArgs ?? [])],
    name: 'asker',
  });
  const client = new McpClient(transport, {
    name: 'asker',
    protocolVersion: version,
    inputHandlers,
    capabilitiesFor,
  });
  clients.push(client);
  await client.connect({ timeoutMs: 20_000 });
  return client;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe.each(['2025-11-25', '2026-07-28'] as const)('server questions in protocol %s', (version) => {
  it('declares form and URL elicitation, sampling with tools, and roots (listChanged only in 2025)', async () => {
    const client = await connect(version, { prompter: person({}).prompter });
    const declared = JSON.parse(text(await client.callTool('capabilities')));
    expect(declared).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {} },
      roots: version === '2026-07-28' ? {} : { listChanged: true },
    });
  });

  it('fills a form: the answers, with the defaults of every field left empty, validated', async () => {
    const someone = person({
      form: () => ({ action: 'accept', answers: { name: 'Ada', size: 'm' } }),
    });
    const client = await connect(version, { prompter: someone.prompter });
    const result = await client.callTool('ask_form');
    expect(result.isError).toBe(false);
    expect(JSON.parse(text(result))).toEqual({
      action: 'accept',
      content: {
        name: 'Ada',
        email: 'ada@example.com',
        age: 36,
        subscribe: true,
        colour: 'g',
        size: 'm',
        toppings: ['cheese'],
      },
    });
    const [question] = someone.forms;
    expect(question?.server).toBe('asker');
    expect(question?.message).toBe('Tell us about you');
    expect(question?.fields.map((f) => `${f.key}:${f.kind}${f.required ? '*' : ''}`)).toEqual([
      'name:string*',
      'email:string',
      'age:integer',
      'subscribe:boolean',
      'colour:enum',
      'size:enum',
      'toppings:multi',
    ]);
  });

  it('passes decline and cancel on as they are', async () => {
    let next: 'decline' | 'cancel' = 'decline';
    const client = await connect(version, { prompter: person({ form: () => ({ action: next }) }).prompter });
    expect(JSON.parse(text(await client.callTool('ask_form')))).toEqual({ action: 'decline' });
    next = 'cancel';
    expect(JSON.parse(text(await client.callTool('ask_form')))).toEqual({ action: 'cancel' });
  });

  it('URL mode: the person sees the parsed URL; a non-http URL is declined without asking', async () => {
    const someone = person({ url: 'accept' });
    const notices: string[] = [];
    const client = await connect(version, { prompter: someone.prompter, notices });
    expect(text(await client.callTool('ask_url'))).toBe('action=accept');
    expect(someone.urls[0]?.url.href).toBe('https://example.com/connect?step=1');
    expect(text(await client.callTool('ask_url', { url: 'javascript:alert(1)' }))).toBe('action=decline');
    expect(someone.urls).toHaveLength(1);
    expect(notices.join('\n')).toMatch(/not http\(s\); declined/);
  });

  it('sampling: shown, approved, sent to the model, the reply shown and returned', async () => {
    const model = scriptedModel([[{ type: 'text', text: `Forty-two. ${SECRET}` }]]);
    const someone = person({ sampling: ['once'] });
    const client = await connect(version, { prompter: someone.prompter, provider: model.provider });
    const result = await client.callTool('sample', { prompt: 'What is the answer?' });
    expect(text(result)).toBe('model=claude-test stop=endTurn text=Forty-two. ***');
    const [question] = someone.samplings;
    expect(question?.modelHints).toEqual(['claude-3-haiku']);
    expect(question?.systemPrompt).toBe('You are terse.');
    expect(question?.messages).toEqual([{ role: 'user', text: 'What is the answer?' }]);
    expect(model.requests[0]?.system).toBe('You are terse.');
    expect(model.requests[0]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the answer?' }] },
    ]);
    expect(someone.replies[0]?.text).toBe('Forty-two. ***');
  });

  it('sampling: denied means the model is never asked; "session" is remembered per server', async () => {
    const model = scriptedModel([[{ type: 'text', text: 'one' }], [{ type: 'text', text: 'two' }]]);
    const someone = person({ sampling: ['deny', 'session'] });
    const client = await connect(version, { prompter: someone.prompter, provider: model.provider });
    const denied = await client.callTool('sample', { prompt: 'x' });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(
      version === '2026-07-28' ? /denied the request to use the model/ : /error -1:/,
    );
    expect(model.requests).toHaveLength(0);
    expect(text(await client.callTool('sample', { prompt: 'x' }))).toMatch(/text=one$/);
    expect(text(await client.callTool('sample', { prompt: 'y' }))).toMatch(/text=two$/);
    expect(someone.samplings).toHaveLength(2);
  });

  it('sampling with tools: the tool use goes back to the server, which answers it and samples again', async () => {
    const model = scriptedModel([
      [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
      [{ type: 'text', text: 'It is sunny in Oslo.' }],
    ]);
    const client = await connect(version, {
      prompter: person({ sampling: ['session'] }).prompter,
      provider: model.provider,
    });
    const result = await client.callTool('sample_tools', { city: 'Oslo' });
    expect(text(result)).toBe('after get_weather: It is sunny in Oslo.');
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(['get_weather']);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          is_error: false,
          content: [{ type: 'text', text: 'sunny in Oslo' }],
        },
      ],
    });
  });

  it('roots: the project root and the allowed folders, as file URIs', async () => {
    const roots = new ClientRoots(['/work/project', '/home/me/notes']);
    const client = await connect(version, { prompter: undefined, roots });
    expect(JSON.parse(text(await client.callTool('list_roots')))).toEqual([
      { uri: pathToFileURL('/work/project').href, name: 'project' },
      { uri: pathToFileURL('/home/me/notes').href, name: 'notes' },
    ]);
  });

  it('one-shot mode: declares no elicitation; a form asked anyway is declined and a notice says so', async () => {
    const notices: string[] = [];
    const client = await connect(version, {
      prompter: undefined,
      notices,
      serverArgs: ['--ignore-capabilities'],
    });
    const declared = JSON.parse(text(await client.callTool('capabilities')));
    expect(declared.elicitation).toBeUndefined();
    expect(declared.sampling).toBeUndefined();
    expect(JSON.parse(text(await client.callTool('ask_form')))).toEqual({ action: 'decline' });
    expect(notices).toEqual([
      expect.stringMatching(
        /^server "asker" \(tools\/call ask_form\) asked for input \(form mode\); declined: nobody can answer in one-shot mode/,
      ),
    ]);
  });

  it('one-shot mode: sampling is denied unless the server is configured sampling: allow', async () => {
    const notices: string[] = [];
    const model = scriptedModel([[{ type: 'text', text: 'allowed' }]]);
    const refused = await connect(version, {
      prompter: undefined,
      provider: model.provider,
      notices,
      serverArgs: ['--ignore-capabilities'],
    });
    expect((await refused.callTool('sample', { prompt: 'x' })).isError).toBe(true);
    expect(notices.join('\n')).toMatch(
      /denied: nobody can approve it in one-shot mode \(-p\); set sampling: allow/,
    );
    expect(model.requests).toHaveLength(0);

    const allowed = await connect(version, {
      prompter: undefined,
      provider: model.provider,
      sampling: 'allow',
    });
    expect(JSON.parse(text(await allowed.callTool('capabilities'))).sampling).toEqual({ tools: {} });
    expect(text(await allowed.callTool('sample', { prompt: 'x' }))).toMatch(/text=allowed$/);
  });

  it('sampling: deny in the config refuses even in the interactive session, without asking', async () => {
    const someone = person({ sampling: ['once'] });
    const client = await connect(version, {
      prompter: someone.prompter,
      sampling: 'deny',
      serverArgs: ['--ignore-capabilities'],
    });
    expect((await client.callTool('sample', { prompt: 'x' })).isError).toBe(true);
    expect(someone.samplings).toHaveLength(0);
  });
});

describe('roots list_changed and older versions', () => {
  it('a 2025 server hears notifications/roots/list_changed when the roots change; a 2026 one is not sent any', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'furfly-roots-'));
    folders.push(folder);
    const roots = new ClientRoots([folder]);
    const legacy = await connect('2025-11-25', { prompter: undefined, roots });
    const modern = await connect('2026-07-28', { prompter: undefined, roots });
    roots.onChange(() => {
      void legacy.notifyRootsChanged();
      void modern.notifyRootsChanged();
    });
    roots.add(path.join(folder, 'sub'));
    await waitFor('the legacy server to count the change', async () =>
      text(await legacy.callTool('roots_changes')) === '1' ? true : undefined,
    );
    expect(text(await modern.callTool('roots_changes'))).toBe('0');
    expect(JSON.parse(text(await legacy.callTool('list_roots')))).toHaveLength(2);
  });

  it('2025-06-18 declares form elicitation as an empty object and sampling without tools', async () => {
    const client = await connect('2025-06-18', { prompter: person({}).prompter });
    expect(JSON.parse(text(await client.callTool('capabilities')))).toEqual({
      elicitation: {},
      sampling: {},
      roots: { listChanged: true },
    });
  });
});
