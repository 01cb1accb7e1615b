import { describe, expect, it } from 'vitest';
import type { LoaderClient, ServerEvent } from '../../mcp/loader.js';
import { createCompleter } from './completion.js';

/** A connected server with resources, a template whose argument it completes, and a prompt. */
function fakeServer() {
  const requests: string[] = [];
  const client = {
    name: 'docs',
    capabilities: { resources: {}, prompts: {}, completions: {} },
    async request(method: string, params: Record<string, unknown> = {}) {
      requests.push(method);
      switch (method) {
        case 'resources/list':
          return {
            resources: [
              { uri: 'file:///readme.md', name: 'readme' },
              { uri: 'file:///guide.md', name: 'guide' },
              { uri: 'file:///bad name\u001b.md', name: 'hostile' },
            ],
          };
        case 'resources/templates/list':
          return { resourceTemplates: [{ uriTemplate: 'notes://{title}', name: 'notes' }] };
        case 'prompts/list':
          return { prompts: [{ name: 'review' }] };
        case 'completion/complete': {
          const value = String((params.argument as { value: string }).value);
          return { completion: { values: ['monday', 'march'].filter((v) => v.startsWith(value)) } };
        }
      }
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as LoaderClient;
  const statuses: ServerEvent[] = [
    { server: 'docs', transport: 'stdio', status: 'ok' },
    { server: 'down', transport: 'stdio', status: 'error' },
  ];
  return {
    client,
    requests,
    source: {
      mcp: { statuses: () => statuses, clients: new Map([['docs', client]]) },
      slashCommands: ['help', 'mcp'],
    },
  };
}

function completeWith(completer: ReturnType<typeof createCompleter>, line: string) {
  return new Promise<[string[], string]>((resolve) => completer(line, (_e, result) => resolve(result)));
}

describe('createCompleter', () => {
  it('completes slash commands and prompts, server names, URIs, template starts and template values', async () => {
    const { source, requests } = fakeServer();
    const completer = createCompleter(source);
    expect(await completeWith(completer, '/m')).toEqual([['/mcp', '/mcp__docs__review'], '/m']);
    expect(await completeWith(completer, 'see @')).toEqual([['@docs:'], '@']);
    expect(await completeWith(completer, 'see @docs:file:///r')).toEqual([
      ['@docs:file:///readme.md'],
      '@docs:file:///r',
    ]);
    // Every candidate is safe to show and type back: the hostile URI is not offered.
    expect((await completeWith(completer, 'see @docs:'))[0]).toEqual([
      '@docs:file:///readme.md',
      '@docs:file:///guide.md',
      '@docs:notes://',
    ]);
    expect(await completeWith(completer, '@docs:notes://m')).toEqual([
      ['@docs:notes://monday', '@docs:notes://march'],
      '@docs:notes://m',
    ]);
    expect(await completeWith(completer, '@docs:notes://mo')).toEqual([
      ['@docs:notes://monday'],
      '@docs:notes://mo',
    ]);
    // Lists are fetched once and reused; template values are asked for each time.
    expect(requests.filter((m) => m === 'resources/list')).toHaveLength(1);
    expect(requests.filter((m) => m === 'completion/complete')).toHaveLength(2);
    // A server that is not connected offers nothing.
    expect(await completeWith(completer, '@down:x')).toEqual([[], '@down:x']);
  });

  it('never offers a prompt name with control characters or spaces (readline shows candidates raw)', async () => {
    const client = {
      name: 'evil',
      capabilities: { prompts: {} },
      async request(method: string) {
        if (method === 'prompts/list')
          return { prompts: [{ name: 'ok' }, { name: 'x\u001b]0;pwned\u0007' }, { name: 'two words' }] };
        throw new Error(`unexpected ${method}`);
      },
    } as unknown as LoaderClient;
    const completer = createCompleter({
      mcp: {
        statuses: () => [{ server: 'evil', transport: 'stdio', status: 'ok' } as ServerEvent],
        clients: new Map([['evil', client]]),
      },
      slashCommands: [],
    });
    expect(await completeWith(completer, '/mcp')).toEqual([['/mcp__evil__ok'], '/mcp']);
  });
});
