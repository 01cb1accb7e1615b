/**
 * One exit-code table across the CLI (docs/cli.md), checked command by command on the built binary:
 * each command's success, failure and usage error, and every `--help` with usage, actions, environment,
 * exit codes and examples. `npm run build` must have run (the CLI and the test servers come from dist/).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPath } from '../../test-servers/testing.js';
import { trustProjectConfig } from '../config/trust.test-helpers.js';
import { spawnCli } from './cli-process.test-helpers.js';
import { CONFIG_ACTIONS } from './commands/config.js';
import { MCP_ACTIONS } from './commands/mcp.js';
import { PERMISSIONS_ACTIONS } from './commands/permissions.js';
import { SANDBOX_ACTIONS } from './commands/sandbox.js';
import { COMMAND_HELP } from './help-sections.js';

let root: string;
/** A project whose config is valid, with one well-behaved server (trusted, as after `furfly trust`). */
let good: string;
/** A project whose config has an error. */
let broken: string;
/** A project with one server that dies at start. */
let dying: string;
let home: string;

function project(name: string, config: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, '.furflycode'), { recursive: true });
  mkdirSync(path.join(dir, '.git'));
  writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), config);
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'furfly-exit-codes-'));
  home = path.join(root, 'home');
  mkdirSync(home);
  const server = (script: string, args: string[] = []) =>
    JSON.stringify({ type: 'stdio', command: process.execPath, args: [serverPath(script), ...args] });
  good = project('good', `mcp_servers:\n  well: ${server('well-behaved')}\n`);
  // An error every command meets, trusted or not: the file does not parse.
  broken = project('broken', 'permissions: [unclosed\n');
  dying = project('dying', `mcp_servers:\n  dies: ${server('crashing', ['--crash-at', 'handshake'])}\n`);
  for (const dir of [good, dying]) trustProjectConfig(dir, home);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function furfly(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const run = spawnCli(args, {
    cwd,
    env: { ...process.env, FURFLY_HOME: home, NO_COLOR: '1', ANTHROPIC_API_KEY: '', ...env },
  });
  // Nothing is piped to these commands: an ended stdin, as from a script.
  run.child.stdin!.end();
  const { code } = await run.exit;
  return { code, out: run.out(), err: run.err() };
}

const WELL = () => ['--', process.execPath, serverPath('well-behaved')];
const BREAKER = () => ['--', process.execPath, serverPath('spec-breaker'), '--break', 'no-server-info'];

/** [command, why, arguments, folder, expected exit code] */
const CASES: ReadonlyArray<[string, string, () => string[], () => string, number]> = [
  ['agent', 'version', () => ['--version'], () => good, 0],
  ['agent', 'no model API key', () => ['-p', 'hi'], () => good, 1],
  ['agent', 'unknown command', () => ['frobnicate'], () => good, 2],
  ['agent', 'missing --cwd folder', () => ['-p', 'hi', '--cwd', '/nowhere/at/all'], () => good, 2],
  ['config', 'valid config', () => ['config', 'validate'], () => good, 0],
  ['config', 'config with an error', () => ['config', 'validate'], () => broken, 1],
  ['config', 'unknown action', () => ['config', 'lst'], () => good, 2],
  ['config', 'missing --cwd folder', () => ['config', 'show', '--cwd', '/nowhere/at/all'], () => good, 2],
  ['mcp', 'every server connects', () => ['mcp', 'list'], () => good, 0],
  ['mcp', 'a server dies', () => ['mcp', 'list'], () => dying, 1],
  ['mcp', 'unknown action', () => ['mcp', 'lst'], () => good, 2],
  ['mcp', 'unknown server', () => ['mcp', 'tools', 'nope'], () => good, 2],
  ['mcp', 'missing --cwd folder', () => ['mcp', 'list', '--cwd', '/nowhere/at/all'], () => good, 2],
  ['conformance', 'no MUST fails', () => ['conformance', '--only', 'lifecycle.*', ...WELL()], () => good, 0],
  [
    'conformance',
    'a MUST fails',
    () => ['conformance', '--only', 'lifecycle.*', ...BREAKER()],
    () => good,
    1,
  ],
  ['conformance', 'unknown option', () => ['conformance', '--bogus', ...WELL()], () => good, 2],
  ['sandbox', 'unknown action', () => ['sandbox', 'frob'], () => good, 2],
  ['permissions', 'a decision', () => ['permissions', 'check', 'bash', '{"command":"ls"}'], () => good, 0],
  ['permissions', 'config with an error', () => ['permissions', 'check', 'bash', '{}'], () => broken, 1],
  ['permissions', 'no tool named', () => ['permissions', 'check'], () => good, 2],
  ['trust', 'trusted', () => ['trust'], () => good, 0],
  ['trust', 'config with an error', () => ['trust'], () => broken, 1],
  ['trust', 'unknown option', () => ['trust', '--bogus'], () => good, 2],
];

describe('exit codes, command by command (the built CLI)', { timeout: 120_000 }, () => {
  it.each(CASES)('%s: %s', async (_command, _why, args, cwd, expected) => {
    const { code, out, err } = await furfly(args(), cwd());
    expect(code, `stdout:\n${out}\nstderr:\n${err}`).toBe(expected);
    // A usage error names the problem on stderr in one or two lines, never a stack trace.
    if (expected === 2) {
      expect(err).toMatch(/^furfly/);
      expect(err).not.toMatch(/\n\s+at /);
    }
  });

  it('sandbox: no Docker engine reachable is exit 3', async () => {
    const { code, err } = await furfly(['sandbox', 'clean'], good, {
      DOCKER_HOST: `unix://${path.join(root, 'no-docker.sock')}`,
    });
    expect(code).toBe(3);
    expect(err).toContain('furfly sandbox clean');
  });

  it('a usage error points at the help of the command that was typed', async () => {
    const { code, err } = await furfly(['mcp', 'list', '--bogus'], good);
    expect(code).toBe(2);
    expect(err).toContain('Run `furfly mcp --help` for usage.');
  });
});

const GROUP_ACTIONS: Record<string, readonly string[]> = {
  mcp: MCP_ACTIONS,
  config: CONFIG_ACTIONS,
  sandbox: SANDBOX_ACTIONS,
  permissions: PERMISSIONS_ACTIONS,
};

describe('every --help (the built CLI)', { timeout: 120_000 }, () => {
  it.each(Object.keys(COMMAND_HELP))(
    'furfly %s --help: usage, actions, environment, exit codes, examples',
    async (command) => {
      const { code, out } = await furfly([...(command ? [command] : []), '--help'], good);
      expect(code).toBe(0);
      const sections = ['Usage:', 'Environment:', 'Exit codes:', 'Examples:'];
      for (const section of sections) expect(out).toContain(`\n${section}\n`);
      const help = COMMAND_HELP[command]!;
      for (const [exit] of help.exitCodes) expect(out).toMatch(new RegExp(`\\n  ${exit}\\s`));
      for (const [name] of help.environment) expect(out).toContain(name);
      const actions = GROUP_ACTIONS[command];
      if (actions) {
        const listed = out.split('\nActions:\n')[1]?.split('\n\n')[0] ?? '';
        for (const action of actions) expect(listed).toMatch(new RegExp(`^  ${action}\\b`, 'm'));
      }
    },
  );

  it('the top-level help names the environment a first run needs', async () => {
    const { out } = await furfly(['--help'], good);
    for (const name of ['ANTHROPIC_API_KEY', 'FURFLY_HOME', 'NO_COLOR']) expect(out).toContain(name);
    expect(out).toContain('$ furfly [task]');
  });

  it('docs/cli.md lists every exit code of every command', () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const byCommand = doc.split('## Exit codes by command')[1] ?? '';
    for (const [command, help] of Object.entries(COMMAND_HELP)) {
      const name = command === '' ? 'furfly' : `furfly ${command}`;
      const row = byCommand.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, `a row for ${name}`).toBeDefined();
      // Columns 0, 1 and 2 are filled for every command; other codes are named in the last column.
      const cells = row!
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      expect(cells.slice(1, 4).every((cell) => cell !== '')).toBe(true);
      for (const [exit] of help.exitCodes.filter(([code]) => code > 2)) {
        expect(cells[4]).toMatch(new RegExp(`\\b${exit}\\b`));
      }
    }
  });
});
