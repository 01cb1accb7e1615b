/**
 * The validator API contract (shared empty result, method tables, readable issues) and the rule that
 * nothing at runtime compiles schemas: generated and protocol code import only Ajv's runtime helpers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { notificationMethods, PROTOCOL_DEFINITIONS, requestMethods, validatorsFor } from './validate.js';
import { KNOWN_PROTOCOL_VERSIONS } from './versions.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('validatorsFor', () => {
  it('returns the same frozen empty list for every valid value', () => {
    const v = validatorsFor('2025-11-25');
    const a = v.message({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const b = v.result('tools/list', { tools: [] });
    const c = v.params('tools/call', { name: 'x' });
    expect(a).toEqual([]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(validatorsFor('2025-11-25')).toBe(v);
  });

  it('maps every request method to its result definition', () => {
    const v = validatorsFor('2025-06-18');
    expect(v.result('initialize', { protocolVersion: '2025-06-18', capabilities: {} })).toEqual([
      { pointer: '/serverInfo', message: "required property 'serverInfo' is missing" },
    ]);
    expect(v.result('tools/call', { content: [{ type: 'text', text: 1 }] })).toEqual([
      { pointer: '/content/0/text', message: 'must be string' },
    ]);
    expect(v.result('ping', 'pong')).toEqual([{ pointer: '', message: 'must be object' }]);
    expect(v.result('logging/setLevel', {})).toEqual([]);
    expect(v.result('completion/complete', { completion: {} })[0]?.pointer).toBe('/completion/values');
    for (const method of [
      'initialize',
      'ping',
      'tools/list',
      'tools/call',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'prompts/list',
      'prompts/get',
      'logging/setLevel',
      'completion/complete',
    ]) {
      expect(requestMethods('2025-06-18')).toContain(method);
    }
  });

  it('checks only "is an object" for methods the schemas do not know', () => {
    const v = validatorsFor('2025-03-26');
    expect(v.result('vendor/thing', { anything: 1 })).toEqual([]);
    expect(v.result('vendor/thing', [1])).toEqual([{ pointer: '', message: 'must be object' }]);
    expect(v.params('vendor/thing', undefined)).toEqual([]);
    expect(v.params('vendor/thing', 3)).toEqual([{ pointer: '', message: 'must be object' }]);
  });

  it('checks params by method, in both directions, and knows which params are required', () => {
    const v = validatorsFor('2025-11-25');
    expect(v.params('tools/call', undefined)).toEqual([
      { pointer: '', message: 'params are required for tools/call' },
    ]);
    expect(v.params('tools/list', undefined)).toEqual([]);
    expect(v.params('notifications/progress', { progressToken: 'a' })).toEqual([
      { pointer: '/progress', message: "required property 'progress' is missing" },
    ]);
    expect(v.params('notifications/message', { level: 'loud', data: 1 })[0]).toEqual({
      pointer: '/level',
      message:
        'must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"',
    });
    expect(v.params('notifications/cancelled', {})).toEqual([]);
    expect(validatorsFor('2025-06-18').params('notifications/cancelled', {})[0]?.pointer).toBe('/requestId');
    for (const method of [
      'notifications/initialized',
      'notifications/tools/list_changed',
      'notifications/message',
    ]) {
      expect(notificationMethods('2025-11-25')).toContain(method);
    }
  });

  it('words envelope problems for people', () => {
    const v = validatorsFor('2025-06-18');
    expect(v.message({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } })).toEqual([
      { pointer: '', message: "a response must not have both 'result' and 'error'" },
    ]);
    expect(v.message({ jsonrpc: '2.0', id: 1, method: 'x' })).toEqual([]);
    expect(v.message({ jsonrpc: '1.0', method: 'x' })).toEqual([
      { pointer: '/jsonrpc', message: 'must be "2.0"' },
    ]);
    expect(v.message({ jsonrpc: '2.0', id: null, method: 'x' })).toEqual([
      { pointer: '/id', message: 'must be string or integer' },
    ]);
  });

  it('exposes every definition by name and throws on an unknown one', () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) {
      const v = validatorsFor(version);
      for (const name of PROTOCOL_DEFINITIONS[version]) expect(typeof v.definition(name, {})).toBe('object');
      expect(() => v.definition('NoSuchThing', {})).toThrow(/unknown MCP .* definition: NoSuchThing/);
    }
    expect(PROTOCOL_DEFINITIONS['2025-03-26']).toContain('JSONRPCBatchRequest');
    expect(PROTOCOL_DEFINITIONS['2025-06-18']).not.toContain('JSONRPCBatchRequest');
    expect(PROTOCOL_DEFINITIONS['2025-06-18']).toContain('ResourceLink');
    expect(PROTOCOL_DEFINITIONS['2025-03-26']).not.toContain('ResourceLink');
    expect(PROTOCOL_DEFINITIONS['2025-11-25']).toContain('Icon');
    expect(PROTOCOL_DEFINITIONS['2026-07-28']).toContain('InputRequiredResult');
    expect(PROTOCOL_DEFINITIONS['2026-07-28']).not.toContain('InitializeRequest');
  });
});

describe('validatorsFor 2026-07-28 (modern era)', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const v = validatorsFor('2026-07-28');

  it('knows the modern methods and none of the removed ones', () => {
    expect(requestMethods('2026-07-28')).toEqual(
      expect.arrayContaining(['server/discover', 'subscriptions/listen', 'tools/call', 'resources/read']),
    );
    for (const gone of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ])
      expect(requestMethods('2026-07-28')).not.toContain(gone);
    for (const gone of ['notifications/initialized', 'notifications/roots/list_changed'])
      expect(notificationMethods('2026-07-28')).not.toContain(gone);
    // Input requests ride inside results; they are not JSON-RPC methods of either side.
    expect(requestMethods('2026-07-28')).not.toContain('sampling/createMessage');
  });

  it('requires the version and client capabilities in every request _meta', () => {
    expect(v.params('tools/list', undefined)).toEqual([
      { pointer: '', message: 'params are required for tools/list' },
    ]);
    expect(v.params('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } })).toEqual([
      {
        pointer: '/_meta/io.modelcontextprotocol~1protocolVersion',
        message: "required property 'io.modelcontextprotocol/protocolVersion' is missing",
      },
    ]);
    expect(v.params('tools/call', { _meta: meta, name: 'x' })).toEqual([]);
  });

  it('checks an input_required result as an InputRequiredResult where the method allows one', () => {
    const asking = { resultType: 'input_required', requestState: 'opaque' };
    expect(v.result('tools/call', asking)).toEqual([]);
    expect(v.result('prompts/get', asking)).toEqual([]);
    expect(v.result('resources/read', asking)).toEqual([]);
    expect(v.result('tools/call', { resultType: 'input_required' }).length).toBeGreaterThan(0);
    // tools/list may not ask for input: the result is checked as a ListToolsResult and fails.
    expect(v.result('tools/list', asking).map((issue) => issue.pointer)).toEqual(
      expect.arrayContaining(['/resultType', '/tools']),
    );
    expect(v.result('tools/call', { resultType: 'complete', content: [] })).toEqual([]);
    expect(v.result('tools/call', { content: [] })).toEqual([
      { pointer: '/resultType', message: "required property 'resultType' is missing" },
    ]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the envelope check', () => {
  // message() accepts a message its own envelope definition accepts without running JSONRPCMessage; that
  // is only the same check while JSONRPCMessage is nothing but an anyOf over (at least) these four.
  it('relies on JSONRPCMessage being an anyOf over the four envelopes, in every version', () => {
    const envelopes = [
      'JSONRPCRequest',
      'JSONRPCNotification',
      'JSONRPCResultResponse',
      'JSONRPCErrorResponse',
    ];
    for (const version of KNOWN_PROTOCOL_VERSIONS) {
      const file = path.join(repoRoot, 'schemas/mcp', version, 'schema.json');
      const schema = JSON.parse(readFileSync(file, 'utf8')) as {
        $defs: Record<string, Record<string, unknown>>;
      };
      const message = schema.$defs.JSONRPCMessage!;
      expect(
        Object.keys(message).filter((key) => key !== 'description'),
        version,
      ).toEqual(['anyOf']);
      const refs = (message.anyOf as { $ref?: string }[]).map((branch) => branch.$ref);
      for (const envelope of envelopes) expect(refs, version).toContain(`#/$defs/${envelope}`);
    }
  });

  it('still rejects what no envelope accepts, and words it by the envelope the message claims', () => {
    const v = validatorsFor('2025-11-25');
    expect(v.message({ jsonrpc: '2.0', id: 1, result: { content: [] } })).toEqual([]);
    expect(v.message({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual([]);
    expect(v.message({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual([]);
    expect(v.message({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } })).toEqual([]);
    expect(v.message({ jsonrpc: '2.0', id: true, result: {} })[0]?.pointer).toBe('/id');
    expect(v.message({ jsonrpc: '1.0', id: 1, result: {} })[0]?.pointer).toBe('/jsonrpc');
    expect(v.message({ jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'no' } })[0]?.pointer).toBe(
      '/error/code',
    );
    expect(v.message({ jsonrpc: '2.0', id: 1 })).toHaveLength(1);
  });
});

describe('no schema compilation at runtime', () => {
  it('src/protocol and src/generated import ajv only as ajv/dist/runtime/* (and ajv-formats formats)', () => {
    const files = [
      ...sourceFiles(path.join(repoRoot, 'src/protocol')),
      ...sourceFiles(path.join(repoRoot, 'src/generated')),
    ];
    expect(files.length).toBeGreaterThan(5);
    const specifier = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g;
    const offending: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
        const spec = match[1]!;
        if (!/^ajv(-formats)?(\/|$)/.test(spec)) continue;
        if (/^ajv\/dist\/runtime\/\w+\.js$/.test(spec) || spec === 'ajv-formats/dist/formats.js') continue;
        offending.push(`${path.relative(repoRoot, file)}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the built validators import from plain node (dist/src/generated)', () => {
    const built = path.join(repoRoot, 'dist/src/protocol/validate.js');
    if (!existsSync(built)) throw new Error('run `npm run build` first (npm test does)');
    const script = `const { validatorsFor } = await import(${JSON.stringify(pathToFileURL(built).href)});
      const v = validatorsFor('2025-03-26');
      console.log(JSON.stringify([v.message([{ jsonrpc: '2.0', id: 1, method: 'ping' }]), v.definition('Tool', {})]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([
      [],
      [
        { pointer: '/name', message: "required property 'name' is missing" },
        { pointer: '/inputSchema', message: "required property 'inputSchema' is missing" },
      ],
    ]);
  });
});
