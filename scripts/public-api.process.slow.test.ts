/**
 * The package as a user gets it: a temp project whose `node_modules/furfly` links to this repository
 * (after `npm run build`), and plain `.mjs` scripts run by `node` that import `furfly/client`,
 * `furfly/config` and `furfly/conformance` by name, through `exports` in package.json. The examples in
 * docs/api.md are extracted and run the same way, so the documentation cannot rot. Every script is a
 * child process ended by its pid if it outlives its budget.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPath } from '../test-servers/testing.js';
import { importGraph, reachableFrom } from './import-graph.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT_BUDGET_MS = 90_000;

let project: string;
let home: string;

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'furfly-api-'));
  home = mkdtempSync(path.join(tmpdir(), 'furfly-api-home-'));
  mkdirSync(path.join(project, 'node_modules'));
  symlinkSync(repo, path.join(project, 'node_modules', 'furfly'), 'dir');
  // "server.mjs" in the docs: here the bundled well-behaved test server (its `echo` echoes).
  const server = pathToFileURL(serverPath('well-behaved')).href;
  writeFileSync(path.join(project, 'server.mjs'), `import ${JSON.stringify(server)};\n`);
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <file> [args]` in the temp project, with an empty user config folder. */
function runNode(file: string, args: readonly string[] = []): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: project,
      env: { ...process.env, FURFLY_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    // Bounds a hang only; a healthy run takes a small fraction of it.
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, SCRIPT_BUDGET_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function writeScript(name: string, text: string): string {
  const file = path.join(project, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('the package imported by name', () => {
  it('furfly/client connects to a stdio server and calls a tool', { timeout: 120_000 }, async () => {
    const file = writeScript(
      'by-name-client.mjs',
      `import { McpClient, StdioTransport, McpConnectError, PROTOCOL_VERSIONS } from 'furfly/client';
const client = new McpClient(new StdioTransport({ command: process.execPath, args: ['server.mjs'] }), { name: 'wb' });
await client.connect({ timeoutMs: 30000 });
const result = await client.callTool('add', { a: 2, b: 40 });
console.log(JSON.stringify({ protocol: client.protocolVersion, known: PROTOCOL_VERSIONS.includes(client.protocolVersion), result, connectError: typeof McpConnectError }));
await client.close();
`,
    );
    const run = await runNode(file);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      protocol: '2025-11-25',
      known: true,
      result: { isError: false, content: [{ type: 'text', text: '42' }] },
      connectError: 'function',
    });
  });

  it('furfly/config and furfly/conformance load, and internals stay private', {
    timeout: 120_000,
  }, async () => {
    const file = writeScript(
      'by-name-others.mjs',
      `import * as config from 'furfly/config';
import * as conformance from 'furfly/conformance';
const privateImport = await import('furfly/dist/src/cli/main.js').then(() => 'loaded', (error) => error.code);
console.log(JSON.stringify({
  loadConfig: typeof config.loadConfig,
  runSuite: typeof conformance.runSuite,
  checks: conformance.ALL_CHECKS.length,
  privateImport,
}));
`,
    );
    const run = await runNode(file);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      loadConfig: 'function',
      runSuite: 'function',
      privateImport: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
    expect(out.checks).toBeGreaterThan(20);
  });

  it('every exported entry point has its JavaScript and its type declarations in the build', () => {
    const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
      files: string[];
    };
    const entries = Object.entries(pkg.exports).filter(([name]) => name !== './package.json');
    expect(entries.map(([name]) => name).sort()).toEqual(['./client', './config', './conformance']);
    for (const [, target] of entries) {
      if (typeof target === 'string') throw new Error('each entry point names its types');
      for (const file of [target.types, target.default]) {
        expect(() => readFileSync(path.join(repo, file))).not.toThrow();
        // Published: the file lies under one of package.json `files`.
        expect(pkg.files.some((folder) => path.normalize(file).startsWith(`${folder}/`))).toBe(true);
      }
    }
  });
});

describe('the type declarations', () => {
  it('type a TypeScript user’s code (a wrong call is an error, so the types are not any)', {
    timeout: 120_000,
  }, async () => {
    const folder = path.join(project, 'ts-user');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [path.join(repo, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['user.mts'],
      }),
    );
    writeFileSync(
      path.join(folder, 'user.mts'),
      `import { McpClient, StdioTransport, type ToolCallResult } from 'furfly/client';
import { loadConfig } from 'furfly/config';
import { runSuite, type Report } from 'furfly/conformance';
const client = new McpClient(new StdioTransport({ command: 'node' }), { name: 'x' });
export const call: Promise<ToolCallResult> = client.callTool('echo', {});
// @ts-expect-error a number is no tool name
client.callTool(42, {});
export const loaded: boolean = loadConfig({ cwd: '.', env: {} }).ok;
export const report: Promise<Report> = runSuite({ target: { transport: 'http', url: 'http://127.0.0.1/', headers: {} }, timeoutMs: 1, callTools: false, fuzz: 0 });
`,
    );
    const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = await runNode(tsc, ['-p', folder]);
    expect(run.stdout + run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('the entry points stay light', () => {
  const graph = importGraph(repo, ['src', 'conformance']);
  const entries = ['src/mcp/index.ts', 'src/config/index.ts', 'conformance/index.ts'];

  it('sees what the agent command loads (so the checks below can fail)', () => {
    const loaded = [...reachableFrom(graph.staticEdges, 'src/cli/commands/agent.ts')];
    expect(loaded).toContain('src/agent/runtime.ts');
    const provider = [...reachableFrom(graph.staticEdges, 'src/agent/provider/anthropic.ts')];
    expect(provider.some((file) => graph.packages.get(file)?.includes('@anthropic-ai/sdk'))).toBe(true);
  });

  it.each(entries)('%s loads neither the CLI, the agent, nor heavy optional packages', (entry) => {
    const loaded = [...reachableFrom(graph.staticEdges, entry)];
    expect(loaded).toContain(entry);
    expect(loaded.filter((file) => /^src\/(cli|agent)\//.test(file))).toEqual([]);
    const packages = new Set(loaded.flatMap((file) => graph.packages.get(file) ?? []));
    for (const heavy of ['@anthropic-ai/sdk', 'testcontainers', 'dockerode', 'cac', 'web-tree-sitter']) {
      expect(packages.has(heavy), `${entry} loads ${heavy}`).toBe(false);
    }
  });
});

/** The runnable parts of docs/api.md: examples, the files they need, and the output they print. */
function docExamples(): {
  examples: { name: string; code: string }[];
  files: { name: string; text: string }[];
  outputs: Map<string, string>;
} {
  const text = readFileSync(path.join(repo, 'docs', 'api.md'), 'utf8');
  const marked = /<!-- (example|file|output): (\S+) -->\n```[a-z]*\n([\s\S]*?)```/g;
  const examples: { name: string; code: string }[] = [];
  const files: { name: string; text: string }[] = [];
  const outputs = new Map<string, string>();
  for (const [, kind, name, body] of text.matchAll(marked)) {
    if (name === undefined || body === undefined) continue;
    if (kind === 'example') examples.push({ name, code: body });
    else if (kind === 'file') files.push({ name, text: body });
    else outputs.set(name, body);
  }
  return { examples, files, outputs };
}

describe('docs/api.md', () => {
  const { examples, files, outputs } = docExamples();

  it('has an example for each entry point, with the output of the ones that print', () => {
    const imported = examples.map((example) => /from 'furfly\/(\w+)'/.exec(example.code)?.[1]);
    expect(imported.sort()).toEqual(['client', 'config', 'conformance']);
    expect([...outputs.keys()].sort()).toEqual(['client.mjs', 'config.mjs']);
  });

  it.each(examples.map((example) => [example.name, example] as const))(
    'the %s example runs as documented',
    { timeout: 120_000 },
    async (_name, example) => {
      for (const file of files) writeScript(file.name, file.text);
      const run = await runNode(writeScript(example.name, example.code));
      expect(run.stderr).not.toMatch(/Error|not ok/);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const expected = outputs.get(example.name);
      if (expected !== undefined) expect(run.stdout).toBe(expected);
    },
  );
});
