// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
/**
 * `furfly mcp add|add-json|get|remove|import`, `furfly config init` and a project's `.mcp.json`, with the
 * built CLI (run `npm run build` first) in a temp project and a temp HOME / FURFLY_HOME.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverPath } from '../../../test-servers/testing.js';
import { spawnCli } from '../cli-process.test-helpers.js';

let dir: string;
let project: string;
let home: string;
let furflyHome: string;
const TOKEN = 'tok-edit-9c1e5b7a33';

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'furfly-mcp-edit-')));
  project = path.join(dir, 'project');
  home = path.join(dir, 'home');
  furflyHome = path.join(home, '.furflycode');
  mkdirSync(path.join(project, '.git'), { recursive: true });
  mkdirSync(home);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function furfly(args: string[], extraEnv: Record<string, string> = {}) {
  const { ANTHROPIC_API_KEY: _key, ...base } = process.env;
  const cli = spawnCli(args, {
    cwd: project,
    env: { ...base, HOME: home, FURFLY_HOME: furflyHome, NO_COLOR: '1', ...extraEnv },
  });
  const { code } = await cli.exit;
  return { code, out: cli.out(), err: cli.err() };
}

const userFile = () => path.join(furflyHome, 'config.yaml');
const projectFile = () => path.join(project, '.furflycode', 'config.yaml');
const read = (file: string) => readFileSync(file, 'utf8');

describe('furfly mcp add / get / remove', { timeout: 60_000 }, () => {
  it('adds a stdio server to the user file, keeps comments and order, and removes it again', async () => {
    mkdirSync(furflyHome);
    const original = [
      '# my servers, do not lose this',
      'max_iterations: 7 # a limit',
      'mcp_servers:',
      '  # the first one',
      '  first:',
      '    type: stdio',
      '    command: node # the runtime',
      '# trailing note',
      '',
    ].join('\n');
    writeFileSync(userFile(), original);
    const added = await furfly(['mcp', 'add', 'echo', '--', process.execPath, 'server.js', '--port', '1']);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain(`added stdio server "echo" to ${userFile()} (user scope)`);
    const text = read(userFile());
    for (const comment of [
      '# my servers, do not lose this',
      '# a limit',
      '# the first one',
      '# the runtime',
      '# trailing note',
    ]) {
      expect(text).toContain(comment);
    }
    expect(text.indexOf('first:')).toBeLessThan(text.indexOf('echo:'));
    expect(text).toContain('      - --port');

    const got = await furfly(['mcp', 'get', 'echo']);
    expect(got.code, got.err).toBe(0);
    expect(got.out).toContain(`command: ${JSON.stringify(process.execPath).replace(/^"|"$/g, '')}`);
    expect(got.out).toContain(`${userFile()}:`);

    const removed = await furfly(['mcp', 'remove', 'echo']);
    expect(removed.code, removed.err).toBe(0);
    expect(read(userFile())).not.toContain('echo');
    expect(read(userFile())).toContain('# the runtime');
    const again = await furfly(['mcp', 'remove', 'echo']);
    expect(again.code).toBe(1);
    expect(again.err).toContain('no server named "echo"');
  });

  it('writes a secret that came from the environment as ${VAR}, and warns about one typed in', async () => {
    const added = await furfly(
      [
        'mcp',
        'add',
        '-e',
        `GITHUB_TOKEN=${TOKEN}`,
        '-e',
        'OTHER=typed-in-secret-77',
        '-e',
        'DEBUG=1',
        'gh',
        '--',
        'node',
        'gh.js',
      ],
      { MY_GH_TOKEN: TOKEN },
    );
    expect(added.code, added.err).toBe(0);
    const text = read(userFile());
    expect(text).toContain('GITHUB_TOKEN: ${MY_GH_TOKEN}');
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('OTHER: typed-in-secret-77');
    expect(added.err).toContain('env OTHER is written as plain text');
    expect(added.err).not.toContain('GITHUB_TOKEN');
    expect(added.err).not.toContain('typed-in-secret-77');
    // The user file may hold tokens: only its owner reads it.
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);

    const http = await furfly(
      ['mcp', 'add', '--header', `Authorization: Bearer ${TOKEN}`, 'api', 'https://mcp.example.com/mcp'],
      {
        API_TOKEN: TOKEN,
      },
    );
    expect(http.code, http.err).toBe(0);
    expect(read(userFile())).toContain('Authorization: Bearer ${API_TOKEN}');
    const got = await furfly(['mcp', 'get', 'api'], { API_TOKEN: TOKEN, MY_GH_TOKEN: TOKEN });
    expect(got.out).toContain('type: http');
    expect(got.out).not.toContain(TOKEN);
  });

  it('refuses what furfly would not load, and leaves the file as it was', async () => {
    expect((await furfly(['mcp', 'add', 'ok', '--', 'node', 'ok.js'])).code).toBe(0);
    const before = read(userFile());
    const missing = await furfly(['mcp', 'add-json', 'bad', '{"type":"stdio","args":["x"]}']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('mcp_servers.bad: missing required key "command"');
    expect(missing.err).toContain('not written');
    const wrong = await furfly(['mcp', 'add-json', 'bad', '{"command":"node","timeout":"soon"}']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('mcp_servers.bad.timeout');
    const notJson = await furfly(['mcp', 'add-json', 'bad', '{command:']);
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain('not valid JSON');
    const sseWithEnv = await furfly([
      'mcp',
      'add',
      '--transport',
      'sse',
      '-e',
      'A=b',
      'old',
      'https://o.example.com/sse',
    ]);
    expect(sseWithEnv.code).toBe(2);
    expect(sseWithEnv.err).toContain('an sse server takes --header');
    // Without `--` the server's own options could be taken for furfly's (`--cwd`, `--json`): refused.
    const noDashes = await furfly(['mcp', 'add', 'srv', 'node', 'server.js']);
    expect(noDashes.code).toBe(2);
    expect(noDashes.err).toContain('after --');
    const badName = await furfly(['mcp', 'add', 'a__b', '--', 'node']);
    expect(badName.code).toBe(2);
    const duplicate = await furfly(['mcp', 'add', 'ok', '--', 'node', 'other.js']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('already');
    const local = await furfly(['mcp', 'add', '--scope', 'local', 'x', '--', 'node']);
    expect(local.code).toBe(2);
    expect(local.err).toContain('no "local" scope');
    expect(read(userFile())).toBe(before);
  });

  it('add-json takes a block as Claude writes it: no type means stdio, a url means http', async () => {
    const stdio = await furfly([
      'mcp',
      'add-json',
      'fs',
      '{"command":"npx","args":["-y","fs"],"env":{"A":"b"}}',
    ]);
    expect(stdio.code, stdio.err).toBe(0);
    const http = await furfly(['mcp', 'add-json', 'web', '{"url":"https://mcp.example.com/mcp"}']);
    expect(http.code, http.err).toBe(0);
    const text = read(userFile());
    expect(text).toMatch(/fs:\n {4}type: stdio\n {4}command: npx/);
    expect(text).toMatch(/web:\n {4}type: http\n {4}url: https:\/\/mcp\.example\.com\/mcp/);
  });

  it('adding to the project scope says that the project needs trust again', async () => {
    const added = await furfly(['mcp', 'add', '--scope', 'project', 'p', '--', 'node', 'p.js']);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain('furfly trust');
    expect(read(projectFile())).toContain('command: node');
  });

  it('refuses to edit a project file that is a symlink (it would copy its target, e.g. the user file, into the repository)', async () => {
    mkdirSync(furflyHome);
    writeFileSync(
      userFile(),
      `mcp_servers:\n  gh:\n    type: http\n    url: https://mcp.example.com/mcp\n    headers:\n      Authorization: Bearer ${TOKEN}\n`,
      { mode: 0o600 },
    );
    mkdirSync(path.join(project, '.furflycode'));
    symlinkSync(userFile(), projectFile());
    const added = await furfly(['mcp', 'add', '--scope', 'project', 'p', '--', 'node', 'p.js']);
    expect(added.code).not.toBe(0);
    expect(added.err).toContain('symbolic link');
    expect(lstatSync(projectFile()).isSymbolicLink()).toBe(true);
    const removed = await furfly(['mcp', 'remove', '--scope', 'project', 'gh']);
    expect(removed.code).not.toBe(0);
    expect(lstatSync(projectFile()).isSymbolicLink()).toBe(true);
  });
});

describe('furfly config init', { timeout: 60_000 }, () => {
  it('writes a commented starter that validates, and never overwrites', async () => {
    const first = await furfly(['config', 'init', '--scope', 'project']);
    expect(first.code, first.err).toBe(0);
    const text = read(projectFile());
    expect(text).toMatch(/^# furfly configuration/);
    expect(text).toContain('mcp_servers:');
    const valid = await furfly(['config', 'validate']);
    expect(valid.code, valid.err).toBe(0);
    writeFileSync(projectFile(), '# mine\n');
    const second = await furfly(['config', 'init', '--scope', 'project']);
    expect(second.code).toBe(1);
    expect(second.err).toContain('already exists');
    expect(read(projectFile())).toBe('# mine\n');
    const user = await furfly(['config', 'init']);
    expect(user.code, user.err).toBe(0);
    expect(read(userFile())).toContain('# furfly configuration');
  });
});

describe("another client's files", { timeout: 90_000 }, () => {
  const mcpJson = (servers: Record<string, unknown>) =>
    writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
  const wellBehaved = () => ({ command: process.execPath, args: [serverPath('well-behaved')] });

  it('reads a project .mcp.json as a project source: ignored until trusted, then connected', async () => {
    mcpJson({ shared: wellBehaved() });
    const untrusted = await furfly(['mcp', 'list']);
    expect(untrusted.err + untrusted.out).not.toContain('no config file found');
    expect(untrusted.out).toMatch(/^shared +stdio +ignored/m);
    // A one-shot run leaves it out and says so in one line (the model API here is a closed local port).
    const oneShot = await furfly(['-p', 'hi'], {
      ANTHROPIC_API_KEY: 'sk-test-unused',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    const notices = oneShot.err.split('\n').filter((line) => line.includes('not trusted'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('mcp_servers.shared (a stdio server: runs a command)');
    const origin = await furfly(['config', 'show', '--origin', '--trust-project']);
    expect(origin.code, origin.err).toBe(0);
    expect(origin.out).toMatch(/command: .* # .*\.mcp\.json:\d+:\d+/);
    const trusted = await furfly(['trust']);
    expect(trusted.code, trusted.err).toBe(0);
    expect(trusted.out).toContain('.mcp.json');
    const listed = await furfly(['mcp', 'list']);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/^shared +stdio +ok/m);
  });

  it('reads ${VAR:-default} in .mcp.json like Claude Code', async () => {
    mcpJson({ shared: { command: '${NODE_BIN:-node}', args: ['x.js'] } });
    const shown = await furfly(['config', 'show', '--json', '--trust-project']);
    expect(shown.code, shown.err).toBe(0);
    expect(JSON.parse(shown.out).mcp_servers.shared.command).toBe('node');
  });

  it('a .mcp.json entry with type sse is an HTTP+SSE server; an unknown type says what it got', async () => {
    mcpJson({ old: { type: 'sse', url: 'https://old.example.com/sse' } });
    const shown = await furfly(['config', 'show', '--json', '--trust-project']);
    expect(shown.code, shown.err).toBe(0);
    expect(JSON.parse(shown.out).mcp_servers.old).toMatchObject({
      type: 'sse',
      url: 'https://old.example.com/sse',
    });
    mcpJson({ old: { type: 'websocket', url: 'wss://old.example.com/ws' } });
    const wrong = await furfly(['config', 'validate']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('mcp_servers.old.type: must be one of: stdio, http, sse (got "websocket")');
    expect(wrong.err).toContain('.mcp.json');
  });

  it('mcp add --transport sse writes an HTTP+SSE server with its headers', async () => {
    const added = await furfly([
      'mcp',
      'add',
      '--transport',
      'sse',
      '--header',
      'Authorization: Bearer ${OLD_TOKEN}',
      'old',
      'https://old.example.com/sse',
    ]);
    expect(added.code, added.err).toBe(0);
    const text = read(userFile());
    expect(text).toMatch(/old:\n {4}type: sse\n {4}url: https:\/\/old\.example\.com\/sse/);
    expect(text).toContain('Authorization: Bearer ${OLD_TOKEN}');
  });

  const imported = async (from: string) => {
    const result = await furfly(['mcp', 'import', '--from', from], { GH_TOKEN: TOKEN });
    expect(result.code, result.err).toBe(0);
    return { ...result, text: read(userFile()) };
  };

  it('imports from Claude Desktop (Linux and macOS places)', async () => {
    const linux = path.join(home, '.config', 'Claude');
    mkdirSync(linux, { recursive: true });
    writeFileSync(
      path.join(linux, 'claude_desktop_config.json'),
      JSON.stringify({
        mcpServers: {
          gh: { command: 'npx', args: ['gh'], env: { TOKEN } },
          old: { type: 'sse', url: 'https://x.example.com' },
        },
      }),
    );
    const result = await imported('claude-desktop');
    expect(result.text).toContain('TOKEN: ${GH_TOKEN}');
    expect(result.text).not.toContain(TOKEN);
    // type sse comes along as the HTTP+SSE server it is.
    expect(result.text).toMatch(/old:\n {4}type: sse/);
    rmSync(linux, { recursive: true });
    const mac = path.join(home, 'Library', 'Application Support', 'Claude');
    mkdirSync(mac, { recursive: true });
    writeFileSync(
      path.join(mac, 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { macserver: { url: 'https://m.example.com/mcp' } } }),
    );
    const fromMac = await imported('claude-desktop');
    expect(fromMac.text).toMatch(/macserver:\n {4}type: http/);
  });

  it("imports from Claude Code's ~/.claude.json: user servers and this project's", async () => {
    writeFileSync(
      path.join(home, '.claude.json'),
      JSON.stringify({
        mcpServers: { everywhere: { command: 'node', args: ['a.js'] } },
        projects: {
          [project]: { mcpServers: { here: { type: 'http', url: 'https://h.example.com/mcp' } } },
          '/elsewhere': { mcpServers: { there: { command: 'x' } } },
        },
      }),
    );
    const result = await imported('claude-code');
    expect(result.text).toContain('everywhere:');
    expect(result.text).toContain('here:');
    expect(result.text).not.toContain('there:');
  });

  it('imports from the project .mcp.json and from any file, skipping names already configured', async () => {
    mcpJson({ shared: { command: 'node', args: ['s.js'] } });
    expect((await imported('.mcp.json')).text).toContain('shared:');
    const other = path.join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({ mcpServers: { shared: { command: 'x' }, extra: { command: 'y' } } }),
    );
    const result = await imported(other);
    expect(result.err).toContain('skipped "shared": already configured');
    expect(result.text).toContain('extra:');
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, `{"mcpServers": {"x": {"env": {"T": "${TOKEN}"}}} oops`);
    const unreadable = await furfly(['mcp', 'import', '--from', broken]);
    expect(unreadable.code).toBe(1);
    expect(unreadable.err).toContain('is not valid JSON');
    expect(unreadable.err).not.toContain(TOKEN);
    const missing = await furfly(['mcp', 'import', '--from', path.join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('not found');
  });
});
