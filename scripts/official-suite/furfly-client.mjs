#!/usr/bin/env node
/**
 * The official MCP conformance suite's client under test, played by furfly's CLI the way a user would
 * drive it. The suite runs `<this command> <server-url>` with the scenario's name in
 * MCP_CONFORMANCE_SCENARIO (and, for some, data in MCP_CONFORMANCE_CONTEXT); this script then:
 *
 * 1. writes a user config (`$FURFLY_HOME/config.yaml`, a fresh temporary home) with one http server,
 *    `suite`, at that URL, and the `oauth` fields docs/remote-servers.md describes (a client ID metadata
 *    document URL; for pre-registration, the client the suite registered, its secret by reference);
 * 2. for authorization scenarios, runs `furfly mcp login suite` with `$BROWSER` set to browser.mjs,
 *    which follows the authorization server's redirects as a user who clicks "allow" would;
 * 3. runs the `furfly mcp` commands the scenario is about (`tools`, `call`), with the built CLI
 *    (dist/src/cli/main.js) on the Node.js that runs this script.
 *
 * furfly has no notion of the suite: everything here is configuration and commands a user could type.
 * Exit status: the last command's (the suite records it; scenarios judge the wire, not the status).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const CLI = join(here, '..', '..', 'dist', 'src', 'cli', 'main.js');
const BROWSER = join(here, 'browser.mjs');
/** The URL the suite's authorization servers accept as a client ID metadata document (basic-cimd). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const LOGIN_TIMEOUT_MS = '20000';

/** What each scenario asks of a client, beyond connecting (the suite's own example client does the same). */
const FIRST_TOOL = '<first listed tool>';
const EVERY_LISTED_TOOL = '<every listed tool>';
const CONTEXT_TOOL_CALLS = "<the context's tool calls>";
const FIRST_SKILL = '<first listed skill>';
/** Skills (SEP-2640): list them, then use one (its files are read and verified only then). */
const SKILL_PLAN = [['skills'], ['skill', FIRST_SKILL]];
const PLANS = {
  initialize: [['tools'], ['call', FIRST_TOOL, '{"a":2,"b":3}']],
  tools_call: [['tools'], ['call', FIRST_TOOL, '{"a":2,"b":3}']],
  'elicitation-sep1034-client-defaults': [
    ['call', 'test_client_elicitation_defaults', '{}', '--elicit', 'accept-defaults'],
  ],
  'sse-retry': [['call', 'test_reconnection', '{}']],
  'request-metadata': [['tools'], ['call', 'add_numbers', '{"a":2,"b":3}']],
  'http-standard-headers': [['tools'], ['call', 'add_numbers', '{"a":2,"b":3}']],
  // The calls the scenario hands over in its context (MCP_CONFORMANCE_CONTEXT.toolCalls).
  'http-custom-headers': [['tools'], [CONTEXT_TOOL_CALLS]],
  // Every tool furfly lists (it leaves out the ones with invalid x-mcp-header annotations).
  'http-invalid-tool-headers': [['call', EVERY_LISTED_TOOL, '{"region":"us-west1"}']],
  'json-schema-ref-no-deref': [['tools']],
  // A user hands the schema furfly lists for one tool back to the echo tool, verbatim.
  'json-schema-2020-12-preservation': [
    ['call', 'json_schema_echo', { schemaOf: 'json_schema_2020_12_tool' }],
  ],
  'sep-2322-client-request-state': [
    ['tools'],
    ['call', 'test_mrtr_echo_state', '{}', '--elicit', 'accept-defaults'],
    ['call', 'test_mrtr_unrelated', '{}', '--elicit', 'accept-defaults'],
    ['call', 'test_mrtr_no_state', '{}', '--elicit', 'accept-defaults'],
    ['call', 'test_mrtr_no_result_type', '{}', '--elicit', 'accept-defaults'],
  ],
  'sep-2640-client-no-prefetch': [['skills']],
  'sep-2640-client-verify-digest': SKILL_PLAN,
  'sep-2640-client-verify-size': SKILL_PLAN,
  'sep-2640-client-verify-frontmatter': SKILL_PLAN,
};
const AUTH_PLAN = [['call', 'test-tool', '{}']];

/** A private file in the temporary home (0600), as a user keeps a key or a platform token. */
function privateFile(home, name, content) {
  const path = join(home, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/**
 * The `oauth` lines of the unattended-grant extension scenarios (OAuth client credentials, workload
 * identity federation, enterprise-managed authorization with the ID token a single sign-on left in a
 * file): no login, the grant runs at the first call.
 */
const UNATTENDED = {
  'auth/client-credentials-basic': (context, _home, env) => {
    env.SUITE_CLIENT_SECRET = context.client_secret;
    return [
      'grant: client_credentials',
      `client_id: ${yamlString(context.client_id)}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config variable reference, not a template
      'client_secret: ${SUITE_CLIENT_SECRET}',
      'token_endpoint_auth_method: client_secret_basic',
    ];
  },
  'auth/client-credentials-jwt': (context, home) => [
    'grant: client_credentials',
    `client_id: ${yamlString(context.client_id)}`,
    `private_key_file: ${yamlString(privateFile(home, 'client-key.pem', context.private_key_pem))}`,
    ...(typeof context.signing_algorithm === 'string'
      ? [`signing_algorithm: ${yamlString(context.signing_algorithm)}`]
      : []),
  ],
  'auth/enterprise-managed-authorization': (context, home, env) => {
    env.SUITE_CLIENT_SECRET = context.client_secret;
    return [
      'grant: identity_assertion',
      `client_id: ${yamlString(context.client_id)}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config variable reference, not a template
      'client_secret: ${SUITE_CLIENT_SECRET}',
      `idp_issuer: ${yamlString(context.idp_issuer)}`,
      `idp_client_id: ${yamlString(context.idp_client_id)}`,
      `id_token_file: ${yamlString(privateFile(home, 'sso-id-token.jwt', context.idp_id_token))}`,
    ];
  },
  'auth/wif-jwt-bearer': (context, home) => [
    'grant: jwt_bearer',
    `client_id: ${yamlString(context.client_id)}`,
    `assertion_file: ${yamlString(privateFile(home, 'workload-token.jwt', context.valid_jwt))}`,
  ],
};

function run(args, env, capture = false) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status ?? 1, stdout: result.stdout ?? '' };
}

/** The tools `furfly mcp tools suite --json` lists, as a user sees them (undefined when it failed). */
function listedTools(env) {
  const listed = run(['mcp', 'tools', 'suite', '--json'], env, true);
  if (listed.status !== 0) return undefined;
  const parsed = JSON.parse(listed.stdout);
  return Array.isArray(parsed) ? parsed : (parsed.tools ?? []);
}

/** One plan step as the `furfly mcp` commands it stands for (several for EVERY_LISTED_TOOL). */
function commandsOf(step, env, context) {
  const [action, ...rest] = step;
  if (action === CONTEXT_TOOL_CALLS)
    return (context.toolCalls ?? []).map((c) => ['call', c.name, JSON.stringify(c.arguments ?? {})]);
  if (rest[0] === FIRST_TOOL || rest[0] === EVERY_LISTED_TOOL) {
    const tools = listedTools(env) ?? [];
    const names = tools.map((t) => t.name);
    return (rest[0] === FIRST_TOOL ? names.slice(0, 1) : names).map((name) => [
      action,
      name,
      ...rest.slice(1),
    ]);
  }
  if (rest[0] === FIRST_SKILL) {
    const skill = firstSkill(env);
    return skill === undefined ? [] : [[action, skill, ...rest.slice(1)]];
  }
  const schemaOf = rest[1]?.schemaOf;
  if (schemaOf !== undefined) {
    const tool = (listedTools(env) ?? []).find((t) => t.name === schemaOf);
    if (tool === undefined) return [];
    return [[action, rest[0], JSON.stringify({ schema: tool.inputSchema }), ...rest.slice(2)]];
  }
  return [[action, ...rest]];
}

/** The first skill `furfly mcp skills suite --json` lists, as a user would pick it. */
function firstSkill(env) {
  const listed = run(['mcp', 'skills', 'suite', '--json'], env, true);
  if (listed.status !== 0) return undefined;
  return JSON.parse(listed.stdout).skills?.[0]?.name;
}

async function issuerOf(serverUrl) {
  // What a user looks up once: the issuer the server's protected resource metadata names.
  const challenge = await fetch(serverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await challenge.arrayBuffer();
  const header = challenge.headers.get('www-authenticate') ?? '';
  const match = /resource_metadata="([^"]+)"/.exec(header);
  if (match === null) return undefined;
  const metadata = await (await fetch(match[1])).json();
  return metadata.authorization_servers?.[0];
}

function yamlString(value) {
  return JSON.stringify(value);
}

async function main() {
  const serverUrl = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const home = mkdtempSync(join(tmpdir(), 'furfly-official-suite-'));
  const env = { ...process.env, FURFLY_HOME: home, BROWSER: `${process.execPath} ${BROWSER}` };
  const isAuth = scenario.startsWith('auth/');
  try {
    const lines = ['mcp_servers:', '  suite:', '    type: http', `    url: ${yamlString(serverUrl)}`];
    if (version !== undefined && version !== '') lines.push(`    protocol_version: ${yamlString(version)}`);
    const unattended = UNATTENDED[scenario];
    if (unattended !== undefined) {
      // No browser: the grant itself authenticates the client (docs/remote-servers.md, "Without a
      // browser"). Keys and assertions go into files, as a CI job or a workload gets them.
      lines.push('    oauth:', ...unattended(context, home, env).map((line) => `      ${line}`));
      const issuer = await issuerOf(serverUrl);
      if (issuer !== undefined) lines.push(`      issuer: ${yamlString(issuer)}`);
    } else if (isAuth) {
      lines.push('    oauth:');
      if (typeof context.client_id === 'string') {
        lines.push(`      client_id: ${yamlString(context.client_id)}`);
        if (typeof context.client_secret === 'string') {
          env.SUITE_CLIENT_SECRET = context.client_secret;
          // A reference, as a user writes a secret: the config file never holds it.
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a config variable reference, not a template
          lines.push('      client_secret: ${SUITE_CLIENT_SECRET}');
          const issuer = await issuerOf(serverUrl);
          if (issuer !== undefined) lines.push(`      issuer: ${yamlString(issuer)}`);
        }
      } else {
        lines.push(`      client_metadata_url: ${yamlString(CLIENT_METADATA_URL)}`);
      }
    }
    writeFileSync(join(home, 'config.yaml'), `${lines.join('\n')}\n`, { mode: 0o600 });
    let status = 0;
    if (isAuth && unattended === undefined) {
      status = run(['mcp', 'login', 'suite', '--timeout', LOGIN_TIMEOUT_MS], env).status;
      if (status !== 0) return status;
    }
    for (const step of PLANS[scenario] ?? AUTH_PLAN) {
      for (const [action, ...rest] of commandsOf(step, env, context)) {
        status = run(['mcp', action, 'suite', ...rest], env).status;
        if (status !== 0) return status;
      }
    }
    return status;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    process.stderr.write(`furfly-client: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
