import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../redaction/index.js';
import { ToolRegistry } from '../tools/registry.js';
import { IMAGE_WITHHELD } from '../tools/result-redaction.js';
import { SessionState } from '../tools/session-state.js';
import type { CallToolOptions, McpTool, ToolCallResult } from './client.js';
import { annotatedCategory, RemoteTool, type ToolCaller } from './remote-tool.js';

class FakeCaller implements ToolCaller {
  calls: { name: string; args: Record<string, unknown>; options?: CallToolOptions }[] = [];
  constructor(private readonly answer: (name: string) => ToolCallResult) {}
  async callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions) {
    this.calls.push({ name, args, options });
    return this.answer(name);
  }
}

const definition: McpTool = {
  name: 'search.issues',
  description: 'Searches issues.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  annotations: { readOnlyHint: true, destructiveHint: false },
};

let spillDirectory: string;
beforeEach(async () => {
  spillDirectory = await mkdtemp(path.join(os.tmpdir(), 'furfly-remote-tool-'));
});
afterEach(async () => {
  await rm(spillDirectory, { recursive: true, force: true });
});

function context(signal = new AbortController().signal) {
  return { projectRoot: os.tmpdir(), session: new SessionState(), signal };
}

describe('RemoteTool', () => {
  it('calls the server by its own tool name, with the signal and the timeout', async () => {
    const caller = new FakeCaller(() => ({ isError: false, content: [{ type: 'text', text: 'found 3' }] }));
    const tool = new RemoteTool({
      server: 'github',
      definition,
      name: 'mcp__github__search_issues',
      client: caller,
      callTimeoutMs: 1234,
    });
    const signal = new AbortController().signal;
    const result = await tool.execute({ q: 'bug' }, context(signal));
    expect(result).toEqual({ isError: false, content: [{ type: 'text', text: 'found 3' }] });
    expect(caller.calls).toEqual([
      { name: 'search.issues', args: { q: 'bug' }, options: { signal, timeoutMs: 1234 } },
    ]);
  });

  it('takes its category from the config only; annotations never change it', () => {
    const caller = new FakeCaller(() => ({ isError: false, content: [] }));
    const byDefault = new RemoteTool({ server: 's', definition, name: 'mcp__s__a', client: caller });
    expect(byDefault.category).toBe('execute');
    expect(byDefault.concurrencySafe).toBe(false);
    const read = new RemoteTool({
      server: 's',
      definition,
      name: 'mcp__s__a',
      client: caller,
      category: 'read',
    });
    expect(read.category).toBe('read');
    expect(read.concurrencySafe).toBe(true);
    const edit = new RemoteTool({
      server: 's',
      definition,
      name: 'mcp__s__a',
      client: caller,
      category: 'edit',
    });
    expect(edit.concurrencySafe).toBe(false);
  });

  it('says where it comes from, and gives the permission service no paths or command', () => {
    const tool = new RemoteTool({
      server: 'github',
      definition,
      name: 'mcp__github__search_issues',
      client: new FakeCaller(() => ({ isError: false, content: [] })),
    });
    expect(tool.hardConstraints.join(' ')).toContain('external MCP server "github"');
    expect(tool.hardConstraints.join(' ')).toContain('not covered by the local sandbox');
    expect((tool as { pathsOf?: unknown }).pathsOf).toBeUndefined();
    expect((tool as { commandOf?: unknown }).commandOf).toBeUndefined();
    const registry = new ToolRegistry();
    registry.register(tool);
    expect(registry.categoryOf(tool.name)).toBe('execute');
    expect(registry.pathsOf(tool.name, { q: 'x' })).toEqual([]);
    expect(registry.commandOf(tool.name, { q: 'x' })).toBeUndefined();
  });

  it('falls back to the title or a generated description', () => {
    const caller = new FakeCaller(() => ({ isError: false, content: [] }));
    const titled = new RemoteTool({
      server: 's',
      definition: { name: 't', title: 'Title', inputSchema: { type: 'object' } },
      name: 'mcp__s__t',
      client: caller,
    });
    expect(titled.description).toBe('Title');
    const bare = new RemoteTool({
      server: 's',
      definition: { name: 't', inputSchema: { type: 'object' } },
      name: 'mcp__s__t',
      client: caller,
    });
    expect(bare.description).toContain('"t"');
  });

  it('passes a server-side error through as an error result', async () => {
    const caller = new FakeCaller(() => ({
      isError: true,
      content: [{ type: 'text', text: 'rate limited' }],
    }));
    const tool = new RemoteTool({ server: 's', definition, name: 'mcp__s__a', client: caller });
    expect(await tool.execute({ q: 'x' }, context())).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'rate limited' }],
    });
  });

  it('cuts output over the cap and saves the full output to a private file named in the notice', async () => {
    const big = `${'a'.repeat(60)}${'b'.repeat(60)}`;
    const caller = new FakeCaller(() => ({
      isError: false,
      content: [
        { type: 'text', text: big },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'tail' },
      ],
    }));
    const tool = new RemoteTool({
      server: 's',
      definition,
      name: 'mcp__s__a',
      client: caller,
      maxOutputChars: 100,
      spillDirectory,
    });
    const result = await tool.execute({ q: 'x' }, context());
    expect(result.content[0]).toEqual({ type: 'text', text: big.slice(0, 100) });
    expect(result.content[1]).toEqual({ type: 'image', data: 'AAAA', mimeType: 'image/png' });
    expect(result.content).toHaveLength(3);
    const notice = result.content[2];
    expect(notice?.type).toBe('text');
    const text = notice?.type === 'text' ? notice.text : '';
    expect(text).toContain('showing 100 of 124 characters');
    const file = /saved in (\S+)\]$/.exec(text)?.[1];
    expect(file?.startsWith(spillDirectory)).toBe(true);
    expect(await readFile(file!, 'utf8')).toBe(`${big}\ntail`);
    expect((await stat(file!)).mode & 0o777).toBe(0o600);
  });

  it('masks known secrets before cutting and saving, so neither the file nor the cut holds any part of one', async () => {
    const secret = 'tokSpill0123456789abcdef';
    // The secret straddles the cut at 100 characters.
    const text = `${'a'.repeat(90)}${secret}${'b'.repeat(200)}`;
    const image = Buffer.from(`pixels ${secret}`).toString('base64');
    const caller = new FakeCaller(() => ({
      isError: false,
      content: [
        { type: 'text', text },
        { type: 'image', data: secret, mimeType: 'image/png' },
        { type: 'image', data: image, mimeType: 'image/png' },
      ],
    }));
    const tool = new RemoteTool({
      server: 's',
      definition,
      name: 'mcp__s__a',
      client: caller,
      maxOutputChars: 100,
      spillDirectory,
      redactor: new Redactor([secret]),
    });
    const result = await tool.execute({ q: 'x' }, context());
    const shown = JSON.stringify(result);
    expect(shown).not.toContain(secret.slice(0, 6));
    expect(result.content[0]).toEqual({ type: 'text', text: `${'a'.repeat(90)}***${'b'.repeat(7)}` });
    // The image whose data is the secret is withheld (its notice went to the file with the rest of
    // the text), and so is one whose base64 bytes hold the secret: the redactor knows a secret's base64
    // forms too (docs/security.md), so neither reaches the model.
    expect(result.content.filter((part) => part.type === 'image')).toEqual([]);
    const file = /saved in (\S+)\]$/.exec((result.content.at(-1) as { text: string }).text)?.[1];
    const saved = await readFile(file!, 'utf8');
    expect(saved).toContain('***');
    expect(saved).toContain(IMAGE_WITHHELD);
    expect(saved).not.toContain(secret);
  });

  it('leaves output at the cap untouched', async () => {
    const caller = new FakeCaller(() => ({
      isError: false,
      content: [{ type: 'text', text: 'x'.repeat(100) }],
    }));
    const tool = new RemoteTool({
      server: 's',
      definition,
      name: 'mcp__s__a',
      client: caller,
      maxOutputChars: 100,
      spillDirectory,
    });
    expect(await tool.execute({ q: 'x' }, context())).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'x'.repeat(100) }],
    });
  });

  it('runs through the registry like a built-in: schema checked first, then the server called', async () => {
    const caller = new FakeCaller(() => ({ isError: false, content: [{ type: 'text', text: 'ok' }] }));
    const registry = new ToolRegistry();
    registry.register(new RemoteTool({ server: 's', definition, name: 'mcp__s__search', client: caller }));
    const ctx = { projectRoot: os.tmpdir(), session: new SessionState() };
    const bad = await registry.execute('mcp__s__search', '{}', ctx);
    expect(bad.isError).toBe(true);
    expect(caller.calls).toHaveLength(0);
    expect(await registry.execute('mcp__s__search', '{"q":"x"}', ctx)).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'ok' }],
    });
  });
});

describe('trust_annotations', () => {
  const tool = (annotations?: Record<string, unknown>) => ({
    name: 't',
    inputSchema: { type: 'object' as const },
    ...(annotations ? { annotations } : {}),
  });
  const caller = { callTool: async () => ({ isError: false, content: [] }) };

  it('ignores annotations by default: the configured category holds', () => {
    const remote = new RemoteTool({
      server: 's',
      definition: tool({ readOnlyHint: true }),
      name: 'mcp__s__t',
      client: caller,
    });
    expect(remote.category).toBe('execute');
    const edit = new RemoteTool({
      server: 's',
      definition: tool({ readOnlyHint: true }),
      name: 'mcp__s__t',
      category: 'edit',
      client: caller,
    });
    expect(edit.category).toBe('edit');
  });

  it('with trust, readOnlyHint makes read, destructiveHint false makes edit, a destructive tool execute', () => {
    const make = (annotations?: Record<string, unknown>) =>
      new RemoteTool({
        server: 's',
        definition: tool(annotations),
        name: 'mcp__s__t',
        category: 'read',
        trustAnnotations: true,
        client: caller,
      }).category;
    expect(make({ readOnlyHint: true })).toBe('read');
    expect(make({ readOnlyHint: false, destructiveHint: false })).toBe('edit');
    expect(make({ readOnlyHint: false })).toBe('execute');
    expect(make({ destructiveHint: true })).toBe('execute');
    // No annotations at all: nothing to trust, the configured category stays.
    expect(make()).toBe('read');
    expect(make({ title: 'x' })).toBe('read');
  });

  test.prop([
    fc.record({
      readOnlyHint: fc.option(fc.boolean(), { nil: undefined }),
      destructiveHint: fc.option(fc.boolean(), { nil: undefined }),
    }),
    fc.constantFrom('read', 'edit', 'execute' as const),
  ])(
    'only readOnlyHint true can give read; a tool that may destroy is never below execute',
    (hints, configured) => {
      const annotations = Object.fromEntries(Object.entries(hints).filter(([, v]) => v !== undefined));
      const category = annotatedCategory({ annotations }, configured as 'read' | 'edit' | 'execute');
      if (hints.readOnlyHint === true) expect(category).toBe('read');
      else if (hints.destructiveHint === false) expect(category).toBe('edit');
      else if (Object.keys(annotations).length === 0) expect(category).toBe(configured);
      else expect(category).toBe('execute');
    },
  );
});
