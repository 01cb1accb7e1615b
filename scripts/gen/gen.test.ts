/**
 * The generator end to end on a throwaway schema set: output is importable ESM (in vitest and in plain
 * Node), deterministic, and `diffFolders` (behind `gen:check`) notices every kind of drift.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAll } from './all.js';
import { diffFolders, type GeneratedFile, writeGenerated } from './files.js';
import { toEsm } from './standalone.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Inside the repo so the generated code resolves `ajv` from node_modules like the real output does.
const cacheDir = path.join(repoRoot, 'node_modules', '.cache');

const CONFIG = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://furfly.dev/test/config.schema.json',
  title: 'Some other title',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 2 },
    url: { type: 'string', format: 'uri' },
  },
};
const SHARED = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://furfly.dev/test/mcp/shared/base.json',
  $defs: {
    RequestId: { type: ['string', 'integer'] },
    Named: { type: 'object', required: ['id'], properties: { id: { $ref: '#/$defs/RequestId' } } },
  },
};
const VERSION = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://furfly.dev/test/mcp/2099-01-01/schema.json',
  $defs: {
    RequestId: { $ref: '../shared/base.json#/$defs/RequestId' },
    Named: { $ref: '../shared/base.json#/$defs/Named' },
    PingRequestParams: { type: 'object' },
    PingRequest: {
      type: 'object',
      required: ['method'],
      properties: { method: { const: 'ping' }, params: { $ref: '#/$defs/PingRequestParams' } },
    },
    ClientRequest: { anyOf: [{ $ref: '#/$defs/PingRequest' }] },
    ServerRequest: { anyOf: [{ $ref: '#/$defs/PingRequest' }] },
    ClientNotification: { not: {} },
    ServerNotification: { not: {} },
  },
};

/** A modern-era version: servers send no requests, ask for input inside a result, and a request may be retried with the answers. */
const MODERN = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://furfly.dev/test/mcp/2099-06-01/schema.json',
  $defs: {
    AskParams: { type: 'object', properties: { inputResponses: { type: 'object' } } },
    AskRequest: {
      type: 'object',
      required: ['method', 'params'],
      properties: { method: { const: 'ask' }, params: { $ref: '#/$defs/AskParams' } },
    },
    AskResult: { type: 'object' },
    InputRequiredResult: { type: 'object' },
    WhoParams: { type: 'object' },
    WhoRequest: {
      type: 'object',
      required: ['method'],
      properties: { method: { const: 'who' }, params: { $ref: '#/$defs/WhoParams' } },
    },
    WhoResult: { type: 'object' },
    InputRequest: { anyOf: [{ $ref: '#/$defs/WhoRequest' }] },
    ClientRequest: { anyOf: [{ $ref: '#/$defs/AskRequest' }] },
    ServerRequest: { not: {} },
    ClientNotification: { not: {} },
    ServerNotification: { not: {} },
  },
};

let root: string;
let files: GeneratedFile[];

function write(rel: string, value: unknown): void {
  const target = path.join(root, rel);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, JSON.stringify(value));
}

beforeAll(async () => {
  mkdirSync(cacheDir, { recursive: true });
  root = mkdtempSync(path.join(cacheDir, 'furfly-gen-test-'));
  write('schemas/config.schema.json', CONFIG);
  write('schemas/mcp/shared/base.json', SHARED);
  write('schemas/mcp/2099-01-01/schema.json', VERSION);
  write('schemas/mcp/2099-06-01/schema.json', MODERN);
  files = await generateAll(root);
  writeGenerated(path.join(root, 'out'), files);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('generated files', () => {
  it('are the expected set, each with the generated-file header', () => {
    expect(files.map((f) => f.path)).toEqual([
      'config/types.ts',
      'config/validate.d.ts',
      'config/validate.js',
      'mcp/2099-01-01/methods.ts',
      'mcp/2099-01-01/types.ts',
      'mcp/2099-01-01/validators.d.ts',
      'mcp/2099-01-01/validators.js',
      'mcp/2099-06-01/methods.ts',
      'mcp/2099-06-01/types.ts',
      'mcp/2099-06-01/validators.d.ts',
      'mcp/2099-06-01/validators.js',
    ]);
    for (const file of files) {
      expect(file.content.startsWith('/**\n * GENERATED FILE - DO NOT EDIT.')).toBe(true);
      expect(file.content).not.toMatch(/\brequire\(/);
    }
  });

  it('name the config root type FurflyConfig and every MCP definition', () => {
    const byPath = new Map(files.map((f) => [f.path, f.content]));
    expect(byPath.get('config/types.ts')).toContain('export interface FurflyConfig');
    const mcpTypes = byPath.get('mcp/2099-01-01/types.ts')!;
    for (const name of ['RequestId', 'Named', 'PingRequest', 'McpDefinitions']) {
      expect(mcpTypes).toMatch(new RegExp(`export (type|interface) ${name}\\b`));
    }
    expect(byPath.get('mcp/2099-01-01/methods.ts')).toContain(
      "'ping': { message: 'PingRequest', params: 'PingRequestParams', paramsRequired: false, result: 'EmptyResult', sender: 'both' }",
    );
    expect(byPath.get('mcp/2099-01-01/methods.ts')).toContain(
      "'ping': { params: T.PingRequestParams | undefined; result: T.EmptyResult; sender: 'both' };",
    );
  });

  it('refuse a request that neither side sends', async () => {
    const nobody = { ...VERSION.$defs, ClientRequest: { not: {} }, ServerRequest: { not: {} } };
    write('schemas/mcp/2099-01-01/schema.json', { ...VERSION, $defs: nobody });
    try {
      await expect(generateAll(root)).rejects.toThrow(/PingRequest: listed in neither/);
    } finally {
      write('schemas/mcp/2099-01-01/schema.json', VERSION);
    }
  });

  it('refuse a version that leaves out one of the four sender unions', async () => {
    const { ServerRequest: _s, ...withoutServerRequest } = VERSION.$defs;
    write('schemas/mcp/2099-01-01/schema.json', { ...VERSION, $defs: withoutServerRequest });
    try {
      await expect(generateAll(root)).rejects.toThrow(/ServerRequest: every version must list it/);
    } finally {
      write('schemas/mcp/2099-01-01/schema.json', VERSION);
    }
  });

  it('accept an empty sender union, and table input requests and input-required results apart', () => {
    const methods = new Map(files.map((f) => [f.path, f.content])).get('mcp/2099-06-01/methods.ts')!;
    expect(methods).toContain(
      "'ask': { message: 'AskRequest', params: 'AskParams', paramsRequired: true, result: 'AskResult', inputRequired: true, sender: 'client' },",
    );
    expect(methods).toContain(
      "'ask': { params: T.AskParams; result: T.AskResult | T.InputRequiredResult; sender: 'client' };",
    );
    expect(methods).toContain(
      "'who': { message: 'WhoRequest', params: 'WhoParams', paramsRequired: false, result: 'WhoResult' },",
    );
    expect(methods).toContain("'who': { params: T.WhoParams | undefined; result: T.WhoResult };");
    // The input request is not a JSON-RPC request: it is in INPUT_REQUESTS only.
    const requests = methods.slice(
      methods.indexOf('export const REQUESTS'),
      methods.indexOf('export const NOTIFICATIONS'),
    );
    expect(requests).not.toContain("'who'");
    // Older versions' output has no input tables.
    const legacy = new Map(files.map((f) => [f.path, f.content])).get('mcp/2099-01-01/methods.ts')!;
    expect(legacy).not.toContain('INPUT_REQUESTS');
    // An empty union is the type `never`, so nothing can be typed as a request a modern server sends.
    const types = new Map(files.map((f) => [f.path, f.content])).get('mcp/2099-06-01/types.ts')!;
    expect(types).toContain('export type ServerRequest = never;');
  });

  it('are deterministic', async () => {
    expect(await generateAll(root)).toEqual(files);
  });

  it('import as ES modules inside vitest and report Ajv errors', async () => {
    const config = await import(pathToFileURL(path.join(root, 'out/config/validate.js')).href);
    expect(config.default).toBe(config.validateConfig);
    expect(config.validateConfig({ name: 'ok', url: 'https://example.com/' })).toBe(true);
    expect(config.validateConfig({ name: 'x', url: 'not a uri', extra: 1 })).toBe(false);
    const keywords = config.validateConfig.errors.map((e: { keyword: string }) => e.keyword).sort();
    expect(keywords).toEqual(['additionalProperties', 'format', 'minLength']);

    const mcp = await import(pathToFileURL(path.join(root, 'out/mcp/2099-01-01/validators.js')).href);
    expect(mcp.Named({ id: 3 })).toBe(true);
    expect(mcp.Named({ id: null })).toBe(false);
    expect(mcp.Named.errors[0].instancePath).toBe('/id');
  });

  it('import as ES modules from plain node', () => {
    const url = pathToFileURL(path.join(root, 'out/mcp/2099-01-01/validators.js')).href;
    const script = `const m = await import(${JSON.stringify(url)}); console.log(m.PingRequest({ method: 'ping' }), m.PingRequest({ method: 'pong' }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toBe('true false');
  });
});

describe('diffFolders (gen:check)', () => {
  it('lists changed, missing and extra files', () => {
    const other = path.join(root, 'other');
    writeGenerated(other, files);
    expect(diffFolders(path.join(root, 'out'), other)).toEqual([]);
    writeFileSync(path.join(other, 'config/types.ts'), 'edited');
    rmSync(path.join(other, 'config/validate.d.ts'));
    writeFileSync(path.join(other, 'stray.ts'), '');
    expect(diffFolders(path.join(root, 'out'), other)).toEqual([
      'config/types.ts (differs)',
      'config/validate.d.ts (missing)',
      'stray.ts (should not exist)',
    ]);
  });
});

describe('toEsm', () => {
  it('turns runtime requires into static imports, one per module', () => {
    const raw =
      '"use strict";\nexport const A = validate1;\nconst func1 = require("ajv/dist/runtime/ucs2length").default;\nconst func2 = require("ajv/dist/runtime/ucs2length").default;\n';
    expect(toEsm(raw)).toBe(
      'import __module0Raw from "ajv/dist/runtime/ucs2length.js";\nconst __module0 = __module0Raw && __module0Raw.__esModule ? __module0Raw : { default: __module0Raw };\nexport const A = validate1;\nconst func1 = __module0.default;\nconst func2 = __module0.default;\n',
    );
  });

  it('refuses modules outside the Ajv runtime', () => {
    expect(() => toEsm('const x = require("fs").readFileSync;\n')).toThrow(/unexpected module: fs/);
  });
});
