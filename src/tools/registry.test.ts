import { describe, expect, it } from 'vitest';
import { DuplicateToolError, ToolRegistry } from './registry.js';
import { SessionState } from './session-state.js';
import { type AnyTool, type ContentPart, type Tool, textResult } from './tool.js';

const context = () => ({ projectRoot: process.cwd(), session: new SessionState() });

function fakeTool(name: string, overrides: Partial<AnyTool> = {}): AnyTool {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    },
    category: 'read',
    concurrencySafe: true,
    execute: async (args: { n: number }) => textResult(`got ${args.n}`),
    ...overrides,
  };
}

const textOf = (content: ContentPart[]) => content.map((p) => (p.type === 'text' ? p.text : '')).join('');

describe('ToolRegistry registration', () => {
  it('keeps insertion order in definitions and survives removal of others', () => {
    const registry = new ToolRegistry();
    for (const name of ['zeta', 'alpha', 'mid']) registry.register(fakeTool(name));
    expect(registry.definitions().map((d) => d.name)).toEqual(['zeta', 'alpha', 'mid']);
    registry.unregister('alpha');
    registry.register(fakeTool('beta'));
    expect(registry.definitions().map((d) => d.name)).toEqual(['zeta', 'mid', 'beta']);
  });

  it('rejects a duplicate name by throwing, or by an outcome through tryRegister', () => {
    const registry = new ToolRegistry();
    registry.register(fakeTool('x'));
    expect(() => registry.register(fakeTool('x'))).toThrow(DuplicateToolError);
    const outcome = registry.tryRegister(fakeTool('x'));
    expect(outcome.ok).toBe(false);
    expect(registry.names()).toEqual(['x']);
  });

  it('registerAll is all-or-nothing', () => {
    const registry = new ToolRegistry();
    registry.register(fakeTool('a'));
    expect(() => registry.registerAll([fakeTool('b'), fakeTool('a')])).toThrow(/"a"/);
    expect(() => registry.registerAll([fakeTool('c'), fakeTool('c')])).toThrow(/"c"/);
    expect(registry.names()).toEqual(['a']);
    registry.registerAll([fakeTool('b'), fakeTool('c')]);
    expect(registry.names()).toEqual(['a', 'b', 'c']);
  });

  it('exposes hard constraints in definitions', () => {
    const registry = new ToolRegistry();
    registry.register(fakeTool('a', { hardConstraints: ['never on Sundays'] }));
    registry.register(fakeTool('b'));
    expect(registry.definitions().map((d) => d.hardConstraints)).toEqual([['never on Sundays'], []]);
  });

  it('answers facts for the permission service, asking the tool', () => {
    const registry = new ToolRegistry();
    const withFacts: Tool<{ p: string; c: string }> = {
      ...fakeTool('f', { category: 'edit' }),
      pathsOf: (args) => [args.p],
      commandOf: (args) => args.c,
    };
    registry.register(withFacts);
    registry.register(
      fakeTool('throws', {
        pathsOf: () => {
          throw new Error('no');
        },
      }),
    );
    expect(registry.categoryOf('f')).toBe('edit');
    expect(registry.categoryOf('nope')).toBe('execute');
    expect(registry.pathsOf('f', { p: 'a.txt', c: 'ls' })).toEqual(['a.txt']);
    // Facts read prepared arguments; raw text is not parsed a second time here.
    expect(registry.pathsOf('f', '{"p":"b.txt"}')).toEqual([]);
    expect(registry.pathsOf('throws', {})).toEqual([]);
    expect(registry.commandOf('f', { c: 'ls' })).toBe('ls');
    expect(registry.commandOf('nope', { c: 'ls' })).toBeUndefined();
  });
});

describe('ToolRegistry.execute wraps every failure', () => {
  const registry = new ToolRegistry();
  registry.register(fakeTool('echo'));
  registry.register(
    fakeTool('boom', {
      execute: async () => {
        throw new Error('kaput');
      },
    }),
  );
  registry.register(
    fakeTool('sync-boom', {
      execute: () => {
        throw new TypeError('sync kaput');
      },
    }),
  );
  registry.register(fakeTool('garbage', { execute: async () => 42 as never }));
  registry.register(
    fakeTool('slow', {
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve(textResult('late')), 60_000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted.push(String(ctx.signal.reason));
          });
        }),
    }),
  );
  registry.register(
    fakeTool('bad-schema', { inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } } }),
  );
  registry.register(
    fakeTool('draft7', {
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'shared-id',
        type: 'object',
        properties: { n: { type: 'integer' }, tags: { type: 'array', items: [{ type: 'string' }] } },
        required: ['n'],
      },
    }),
  );
  registry.register(
    fakeTool('same-id', {
      inputSchema: {
        $id: 'shared-id',
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
      },
    }),
  );
  registry.register(
    fakeTool('odd-dialect', {
      inputSchema: {
        $schema: 'https://example.com/my-dialect',
        type: 'object',
        properties: { n: { type: 'integer' } },
      },
    }),
  );
  registry.register(
    fakeTool('no-args', { inputSchema: { type: 'object' }, execute: async () => textResult('ok') }),
  );
  const aborted: string[] = [];

  const cases: ReadonlyArray<readonly [string, string, string | object | undefined, RegExp]> = [
    ['unknown tool', 'missing', {}, /Tool "missing" failed: no tool with that name.*Available: echo, boom/],
    ['bad JSON', 'echo', '{"n": 1', /Tool "echo" failed: invalid JSON arguments/],
    [
      'non-object JSON',
      'echo',
      '[1,2]',
      /Tool "echo" failed: invalid JSON arguments: arguments must be a JSON object/,
    ],
    [
      'schema violation',
      'echo',
      { n: 'one' },
      /Tool "echo" failed: arguments do not match its input schema: \/n: must be integer/,
    ],
    ['missing property', 'echo', {}, /\(root\): must have required property 'n'/],
    ['extra property', 'echo', { n: 1, x: 2 }, /must NOT have additional properties 'x'/],
    ['thrown error', 'boom', { n: 1 }, /Tool "boom" failed: kaput/],
    ['synchronous throw', 'sync-boom', { n: 1 }, /Tool "sync-boom" failed: sync kaput/],
    [
      'not a result',
      'garbage',
      { n: 1 },
      /Tool "garbage" failed: it returned something that is not a tool result/,
    ],
    [
      'uncompilable schema',
      'bad-schema',
      { n: 1 },
      /Tool "bad-schema" failed: its input schema cannot be used/,
    ],
  ];
  it.each(cases)('%s', async (_label, name, args, message) => {
    const result = await registry.execute(name, args, context());
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toMatch(message);
  });

  it('runs valid calls from objects and JSON strings; empty arguments mean {}', async () => {
    expect(await registry.execute('echo', { n: 3 }, context())).toEqual(textResult('got 3'));
    expect(await registry.execute('echo', '{"n":4}', context())).toEqual(textResult('got 4'));
    expect(await registry.execute('no-args', '', context())).toEqual(textResult('ok'));
    expect(await registry.execute('no-args', undefined, context())).toEqual(textResult('ok'));
  });

  it('uses the dialect a schema declares, tolerates unknown dialects and repeated $id', async () => {
    expect((await registry.execute('draft7', { n: 1, tags: ['a'] }, context())).isError).toBe(false);
    const bad = await registry.execute('draft7', { n: 1, tags: [3] }, context());
    expect(textOf(bad.content)).toMatch(/\/tags\/0: must be string/);
    expect((await registry.execute('same-id', { n: 1 }, context())).isError).toBe(false);
    expect((await registry.execute('odd-dialect', { n: 1 }, context())).isError).toBe(false);
    expect((await registry.execute('odd-dialect', { n: 'x' }, context())).isError).toBe(true);
  });

  it('times out, aborts the tool signal and answers without waiting for the tool', async () => {
    const result = await registry.execute('slow', { n: 1 }, context(), { timeoutMs: 50 });
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe('Tool "slow" failed: timed out after 50 ms');
    expect(aborted.at(-1)).toContain('timed out after 50 ms');
  });

  it('answers a cancellation by the caller, before or during the call', async () => {
    const early = new AbortController();
    early.abort();
    const before = await registry.execute('echo', { n: 1 }, { ...context(), signal: early.signal });
    expect(textOf(before.content)).toMatch(/cancelled before it started/);

    const during = new AbortController();
    const pending = registry.execute('slow', { n: 1 }, { ...context(), signal: during.signal });
    setTimeout(() => during.abort(), 20);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe('Tool "slow" failed: the call was cancelled');
  });
});

describe('ToolRegistry.prepare and run: one prepared call', () => {
  it('parses JSON text once; run executes the prepared object itself', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(
      fakeTool('keep', {
        execute: async (args) => {
          seen.push(args);
          return textResult('kept');
        },
      }),
    );
    const preparation = registry.prepare('keep', '{"n":7}');
    if (!preparation.ok) throw new Error('did not prepare');
    expect(preparation.call).toMatchObject({ toolName: 'keep', args: { n: 7 } });
    expect(await registry.run(preparation.call, context())).toEqual(textResult('kept'));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(preparation.call.args);
  });

  it('says which preparations failed and whether the tool exists', () => {
    const registry = new ToolRegistry();
    registry.register(fakeTool('echo'));
    expect(registry.prepare('nope', {})).toMatchObject({ ok: false, known: false });
    const bad = registry.prepare('echo', { n: 'x' });
    expect(bad).toMatchObject({ ok: false, known: true });
    expect(bad.ok ? '' : textOf(bad.result.content)).toMatch(/do not match its input schema/);
  });

  it('runs only calls it prepared, and not after their tool was removed or replaced', async () => {
    let runs = 0;
    const registry = new ToolRegistry();
    const counting = () =>
      fakeTool('echo', {
        execute: async () => {
          runs++;
          return textResult('ran');
        },
      });
    const original = counting();
    registry.register(original);

    const forged = { toolName: 'echo', tool: original, args: { n: 'not validated' } };
    const refused = await registry.run(forged, context());
    expect(textOf(refused.content)).toBe('Tool "echo" failed: the call was not prepared by this registry');

    const preparation = registry.prepare('echo', { n: 1 });
    if (!preparation.ok) throw new Error('did not prepare');
    registry.unregister('echo');
    registry.register(counting());
    const stale = await registry.run(preparation.call, context());
    expect(stale.isError).toBe(true);
    expect(textOf(stale.content)).toMatch(/was removed before the call could run/);
    expect(runs).toBe(0);
  });
});
