// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these strings.
/**
 * The canary: secrets placed in the environment and in env/headers/api_key must never reach stdout or stderr
 * of any `furfly config` command, valid config or broken. Runs the real built CLI (`npm run build` first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type LaidOut, layOut, listCases } from '../../config/fixture-harness.test-helpers.js';

const CLI = fileURLToPath(new URL('../../../dist/src/cli/main.js', import.meta.url));

// Distinct values so a leak names its source.
const FROM_ENV = `env-canary-${randomUUID()}`;
const IN_ENV_FIELD = `field-canary-env-${randomUUID()}`;
const IN_HEADER = `field-canary-header-${randomUUID()}`;
const IN_API_KEY = `field-canary-apikey-${randomUUID()}`;
const SECRETS = [FROM_ENV, IN_ENV_FIELD, IN_HEADER, IN_API_KEY];

const SECRET_USER_LAYER = `providers:
  - name: claude
    protocol: anthropic
    api_key: ${IN_API_KEY}
    model: claude-sonnet-4-5
  - name: from-env
    protocol: anthropic
    api_key: \${CANARY_TOKEN}
    model: m
mcp_servers:
  gh:
    type: http
    url: https://example.com/\${CANARY_TOKEN}/mcp
    headers:
      Authorization: Bearer ${IN_HEADER}
      X-From-Env: \${CANARY_TOKEN}
  local:
    type: stdio
    command: node
    args: ["--token=\${CANARY_TOKEN}"]
    env:
      API_TOKEN: ${IN_ENV_FIELD}
      FROM_ENV: \${CANARY_TOKEN}
`;

/** Every error kind sits next to a secret: wrong types at secret fields, unknown keys holding secrets, bad URLs. */
const BROKEN_PROJECT_LAYER = `providers:
  - name: claude
    protocol: openai
    base_url: \${CANARY_TOKEN}
mcp_servers:
  gh:
    url: ftp://\${CANARY_TOKEN}
    headers:
      Authorization:
        nested: ${IN_HEADER}
  local:
    env:
      API_TOKEN: [${IN_ENV_FIELD}]
      MISSING: \${UNDEFINED_CANARY_VARIABLE}
    token: ${IN_ENV_FIELD}
  bad__name:
    type: stdio
    command: \${CANARY_TOKEN}
    api_key: ${IN_API_KEY}
`;

const COMMANDS = [
  ['show'],
  ['show', '--json'],
  ['show', '--origin'],
  ['show', '--json', '--origin'],
  ['validate'],
  ['path'],
  ['path', '--json'],
];

let laid: LaidOut | undefined;
const laidOut: LaidOut[] = [];
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  children.clear();
  for (const l of laidOut.splice(0)) l.cleanup();
  laid?.cleanup();
  laid = undefined;
});

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly out: string;
}

/** Runs `furfly config ...` to completion; the child always exits by itself (the CLI only reads files). */
function runCli(
  args: readonly string[],
  cwd: string,
  home: string,
  extraEnv: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    // Trusted for the run: the canary is about secrets in what every part of the config would print.
    const child = spawn(process.execPath, [CLI, 'config', ...args, '--trust-project'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        FURFLY_HOME: home,
        CANARY_TOKEN: FROM_ENV,
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr, out: stdout + stderr });
    });
  });
}

/** Runs the jobs two at a time: the machine running the suite may have only two cores. */
async function inPairs<T>(jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2)
    results.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return results;
}

function expectNoSecret(output: string, what: string): void {
  for (const secret of SECRETS) {
    if (output.includes(secret)) throw new Error(`${what} printed the secret ${secret}:\n${output}`);
  }
}

/** A throwaway home + project layout with our own layers, reusing the fixture harness. */
function layOutLayers(user: string, project?: string): LaidOut {
  const l = layOut({ name: 'canary', dir: '/nonexistent', env: {} });
  writeFileSync(path.join(l.home, 'config.yaml'), user);
  if (project !== undefined) {
    mkdirSync(path.join(l.project, '.furflycode'), { recursive: true });
    writeFileSync(path.join(l.project, '.furflycode', 'config.yaml'), project);
  }
  return l;
}

// Up to dozens of CLI runs per test, two at a time; a loaded two-core machine can take seconds per start,
// so the budgets bound a hang, they are not speed checks.
describe('secret canary (real CLI process)', { timeout: 120_000 }, () => {
  it('the built CLI exists', () => {
    expect(existsSync(CLI), `${CLI} is missing: run npm run build`).toBe(true);
  });

  it('a valid config with secrets: every command succeeds and prints none of them', async () => {
    laid = layOutLayers(SECRET_USER_LAYER);
    const l = laid;
    const runs = await inPairs(COMMANDS.map((args) => () => runCli(args, l.project, l.home)));
    runs.forEach((r, i) => {
      const what = `config ${COMMANDS[i]!.join(' ')}`;
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expectNoSecret(r.out, what);
    });
    // The masking is what hides them: the structure is still there.
    expect(runs[0]!.stdout).toContain('Authorization: "***"');
  });

  it('a broken config next to secrets: every error is reported and none of them is printed', async () => {
    laid = layOutLayers(SECRET_USER_LAYER, BROKEN_PROJECT_LAYER);
    const l = laid;
    const runs = await inPairs(COMMANDS.map((args) => () => runCli(args, l.project, l.home)));
    runs.forEach((r, i) => {
      expectNoSecret(r.out, `config ${COMMANDS[i]!.join(' ')} (broken)`);
    });
    const r = runs[COMMANDS.findIndex((c) => c[0] === 'validate')]!;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'mcp_servers.local.env.MISSING references undefined variable ${UNDEFINED_CANARY_VARIABLE}',
    );
    expect(r.stderr).toContain('mcp_servers.local.env.API_TOKEN: is a single value in');
    expect(r.stderr).toContain('mcp_servers.gh.headers.Authorization: is a single value in');
    expect(r.stderr).toContain('providers[0].base_url: must be an http:// or https:// URL');
    expect(r.stderr).toContain('mcp_servers.local.token: unknown key');
  });

  it('YAML errors next to secrets: a value starting with ! (read as a tag) and a bad block header', {
    timeout: 120_000,
  }, async () => {
    const layers = [
      `mcp_servers:\n  db:\n    type: stdio\n    command: psql\n    env: {DB_PASSWORD: !${IN_ENV_FIELD}!x}\n`,
      `mcp_servers:\n  db:\n    type: stdio\n    command: psql\n    env:\n      TOKEN: |${IN_HEADER}\n        x\n`,
    ];
    for (const project of layers) {
      const l = layOutLayers('max_iterations: 3\n', project);
      laidOut.push(l);
      const commands = [['validate'], ['show', '--json', '--origin']];
      const runs = await inPairs(commands.map((args) => () => runCli(args, l.project, l.home)));
      runs.forEach((r, i) => {
        expect(r.code).toBe(1);
        expectNoSecret(r.out, `config ${commands[i]!.join(' ')} (YAML error)`);
      });
    }
  });

  it('every broken fixture: validate and show fail, with the secrets in the environment, printing none', {
    timeout: 300_000,
  }, async () => {
    const broken = listCases().filter((c) => c.expectedError !== undefined);
    expect(broken.length).toBeGreaterThan(10);
    const jobs = broken.flatMap((c) => {
      const l = layOut(c);
      laidOut.push(l);
      // Every variable a fixture sets is set to the canary instead; the ones it expects to be undefined stay unset.
      const env = Object.fromEntries(Object.keys(c.env).map((k) => [k, FROM_ENV]));
      return [['validate'], ['show', '--json', '--origin']].map((args) => async () => {
        const cliArgs = c.configFile === undefined ? args : [...args, '--config', c.configFile];
        return { c, args, r: await runCli(cliArgs, l.project, l.home, env) };
      });
    });
    for (const { c, args, r } of await inPairs(jobs)) {
      const what = `${c.name}: config ${args.join(' ')}`;
      expect(r.code, what).toBe(1);
      expect(r.stderr.length, what).toBeGreaterThan(0);
      expectNoSecret(r.out, what);
    }
  });
});
