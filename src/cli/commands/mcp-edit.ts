/**
 * `furfly mcp add|add-json|get|remove|import`: change the servers of a config file from the shell, with the
 * names and meaning Claude Code uses where they overlap.
 *
 *   furfly mcp add [--scope user|project] [-e KEY=VALUE]… <name> -- <command> [args…]
 *   furfly mcp add [--scope user|project] [--transport http|sse] [--header 'K: V']… <name> <url>
 *   furfly mcp add-json [--scope …] <name> '<json>'        a server block as Claude's files write it
 *   furfly mcp get <name>                                   the entry as a run uses it, and its file
 *   furfly mcp remove [--scope …] <name>
 *   furfly mcp import --from claude-desktop|claude-code|.mcp.json|<file> [--scope …]
 *
 * The default scope is `user` (furfly's own file in the person's home): private to them like Claude
 * Code's default `local` scope, and it needs no trust. `project` writes `.furflycode/config.yaml`, which
 * a repository shares and whose servers need `furfly trust`. Edits go through config/edit-file.ts (comments
 * kept, checked by the loader, written atomically); secrets become `${VAR}` references where the
 * environment holds them (config/env-references.ts).
 */
import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import YAML, { type Document } from 'yaml';
import { claudeServerMap, fromClaudeServer } from '../../config/claude-servers.js';
import { type CandidateCheck, editConfigFile, readIfExists } from '../../config/edit-file.js';
import { withEnvReferences } from '../../config/env-references.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { loadConfig } from '../../config/load.js';
import { locateConfigFiles } from '../../config/paths.js';
import { projectKey } from '../../config/project-trust.js';
import { renderYaml } from '../../config/render.js';
import { configSecrets } from '../../config/secrets.js';
import { entry, type MapNode } from '../../config/tree.js';
import { Redactor } from '../../redaction/index.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';

export const EDIT_ACTIONS = ['add', 'add-json', 'get', 'remove', 'import'] as const;

export interface McpEditOptions {
  readonly scope?: string;
  readonly transport?: string;
  /** `-e KEY=VALUE` (repeatable). */
  readonly env?: string | string[];
  readonly header?: string | string[];
  readonly from?: string;
  readonly '--'?: readonly string[];
  readonly cwd?: string;
  readonly config?: string;
  readonly trustProject?: boolean;
}

export interface McpEditIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
}

class UsageError extends Error {}
class Refused extends Error {}

type Scope = 'user' | 'project';
type ServerEntry = Record<string, unknown>;

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

export function runMcpEdit(
  action: (typeof EDIT_ACTIONS)[number],
  positionals: readonly string[],
  options: McpEditOptions,
  io: McpEditIo,
): number {
  try {
    switch (action) {
      case 'add':
        return add(positionals, options, io);
      case 'add-json':
        return addJson(positionals, options, io);
      case 'get':
        return get(positionals, options, io);
      case 'remove':
        return remove(positionals, options, io);
      case 'import':
        return importServers(positionals, options, io);
    }
  } catch (error) {
    io.stderr(`furfly mcp ${action}: ${terminalText((error as Error).message)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

// ---- add / add-json ------------------------------------------------------------------------------

function add(positionals: readonly string[], options: McpEditOptions, io: McpEditIo): number {
  const [name, ...rest] = positionals.map(String);
  if (name === undefined)
    throw new UsageError('usage: furfly mcp add <name> -- <command> [args…]  or  <name> <url>');
  const command = [...rest, ...(options['--'] ?? []).map(String)];
  if (command.length === 0)
    throw new UsageError(
      `say what to run after the name: furfly mcp add ${name} -- <command> [args…], or give a URL`,
    );
  const looksLikeUrl = /^https?:\/\//i.test(command[0]!);
  // Without `--`, a server's own options that furfly also has (`--cwd`, `--json`) would be taken as furfly's.
  if (!looksLikeUrl && rest.length > 1) {
    throw new UsageError(
      `put the server's command after --: furfly mcp add ${name} -- ${rest.map((w) => terminalLine(w)).join(' ')} …`,
    );
  }
  const transport = options.transport ?? (looksLikeUrl ? 'http' : 'stdio');
  if (transport !== 'stdio' && transport !== 'http' && transport !== 'sse') {
    throw new UsageError(`--transport must be one of: stdio, http, sse (got "${terminalLine(transport)}")`);
  }
  const warnings: string[] = [];
  let server: ServerEntry;
  if (transport === 'http' || transport === 'sse') {
    if (command.length !== 1)
      throw new UsageError(
        `an ${transport} server takes one URL: furfly mcp add --transport ${transport} <name> <url>`,
      );
    if (list(options.env).length > 0)
      throw new UsageError(`-e/--env is for stdio servers; an ${transport} server takes --header`);
    server = { type: transport, url: command[0] };
    const headers = parseHeaders(list(options.header), io.env, warnings);
    if (Object.keys(headers).length > 0) server.headers = headers;
  } else {
    if (list(options.header).length > 0)
      throw new UsageError('--header is for http servers; a stdio server takes -e KEY=VALUE');
    server = { type: 'stdio', command: command[0] };
    if (command.length > 1) server.args = command.slice(1);
    const env = parseEnv(list(options.env), io.env, warnings);
    if (Object.keys(env).length > 0) server.env = env;
  }
  return writeServer(name, server, options, io, warnings);
}

function addJson(positionals: readonly string[], options: McpEditOptions, io: McpEditIo): number {
  const [name, json, extra] = positionals.map(String);
  if (name === undefined || json === undefined)
    throw new UsageError(`usage: furfly mcp add-json <name> '<json>'`);
  if (extra !== undefined)
    throw new UsageError(`unexpected argument "${terminalLine(extra)}" (quote the JSON as one word)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // JSON.parse's message quotes the text around the mistake, which may be a token.
    throw new UsageError(
      `the server is not valid JSON (quote it as one word: '{"command":"node","args":["server.js"]}')`,
    );
  }
  const converted = fromClaudeServer(parsed);
  if (!converted.ok) throw new UsageError(converted.message);
  const warnings: string[] = [];
  return writeServer(name, referencedSecrets(converted.server, io.env, warnings), options, io, warnings);
}

function writeServer(
  name: string,
  server: ServerEntry,
  options: McpEditOptions,
  io: McpEditIo,
  warnings: readonly string[],
): number {
  checkName(name);
  const target = targetFile(options, io);
  const existing = serverNamesIn(target.file);
  if (existing.includes(name)) {
    throw new Refused(
      `a server named "${name}" is already in ${target.file}; remove it first (furfly mcp remove ${name}${target.scope === 'project' ? ' --scope project' : ''})`,
    );
  }
  const result = editConfigFile(
    target.file,
    (doc) => doc.setIn(['mcp_servers', name], doc.createNode(server)),
    checkerFor(io.env),
    { privateFile: target.scope === 'user' },
  );
  if (!result.ok) return refusedWrite(target.file, result.problems, io);
  for (const warning of warnings)
    io.stderr(`furfly mcp: warning: ${terminalLine(target.file)}: ${terminalLine(warning)}\n`);
  io.stdout(
    `added ${server.type} server "${name}" to ${terminalLine(target.file)} (${target.scope} scope)\n`,
  );
  if (target.scope === 'project') io.stdout(TRUST_HINT);
  return 0;
}

const TRUST_HINT =
  'the project config changed: its servers need trust again before a run uses them (furfly trust, or --trust-project for one run)\n';

// ---- get / remove ------------------------------------------------------------------------------

function get(positionals: readonly string[], options: McpEditOptions, io: McpEditIo): number {
  const [name, extra] = positionals.map(String);
  if (name === undefined) throw new UsageError('usage: furfly mcp get <name>');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${terminalLine(extra)}"`);
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const load = (trustProject?: boolean) =>
    loadConfig({
      cwd,
      configFile: options.config,
      env: io.env,
      ...(trustProject === true ? { trustProject } : {}),
    });
  const loaded = load(options.trustProject === true ? true : undefined);
  if (!loaded.ok) throw new Refused(loaded.errors.map(formatConfigError).join('\n'));
  let shown = loaded;
  let note = '';
  if (loaded.config.mcp_servers[name] === undefined) {
    const ignored = loaded.trust.ignored.some((p) => p.path[0] === 'mcp_servers' && p.path[1] === name);
    const trusted = ignored ? load(true) : undefined;
    if (trusted?.ok !== true) {
      const known = Object.keys(loaded.config.mcp_servers);
      throw new Refused(`no MCP server named "${name}" (configured: ${known.join(', ') || 'none'})`);
    }
    shown = trusted;
    note =
      'not in effect: the project config is not trusted (furfly trust, or --trust-project for one run)\n';
  }
  const servers = entry(shown.tree, 'mcp_servers')!.value as MapNode;
  const server = entry(servers, name)!;
  const tree: MapNode = {
    kind: 'map',
    origins: shown.tree.origins,
    entries: [
      {
        key: 'mcp_servers',
        keyOrigin: server.keyOrigin,
        value: { kind: 'map', origins: servers.origins, entries: [server] },
      },
    ],
  };
  const redactor = new Redactor(configSecrets(shown.config, { ...shown, env: io.env }));
  io.stdout(renderYaml(tree, { origins: true, redactor }));
  io.stdout(note);
  return 0;
}

function remove(positionals: readonly string[], options: McpEditOptions, io: McpEditIo): number {
  const [name, extra] = positionals.map(String);
  if (name === undefined) throw new UsageError('usage: furfly mcp remove <name> [--scope user|project]');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${terminalLine(extra)}"`);
  const target = targetFile(options, io);
  if (!serverNamesIn(target.file).includes(name)) {
    const other =
      options.scope === undefined ? targetFile({ ...options, scope: 'project' }, io, true) : undefined;
    const hint =
      other !== undefined && serverNamesIn(other.file).includes(name)
        ? ` (it is in ${other.file}: add --scope project)`
        : '';
    throw new Refused(`no server named "${name}" in ${target.file}${hint}`);
  }
  const result = editConfigFile(
    target.file,
    (doc) => doc.deleteIn(['mcp_servers', name]),
    checkerFor(io.env),
    {
      privateFile: target.scope === 'user',
    },
  );
  if (!result.ok) return refusedWrite(target.file, result.problems, io);
  io.stdout(`removed server "${name}" from ${terminalLine(target.file)} (${target.scope} scope)\n`);
  if (target.scope === 'project') io.stdout(TRUST_HINT);
  return 0;
}

// ---- import ------------------------------------------------------------------------------------

function importServers(positionals: readonly string[], options: McpEditOptions, io: McpEditIo): number {
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument "${terminalLine(String(positionals[0]))}"`);
  const from = options.from;
  if (from === undefined || from === '') {
    throw new UsageError('say where from: --from claude-desktop | claude-code | .mcp.json | <file>');
  }
  const found = importSources(from, io, options);
  const servers: [string, unknown][] = [];
  for (const source of found) {
    const text = readIfExists(source.file);
    if (text === undefined) continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Not the parser's message: it quotes the file's text, and these files hold tokens.
      throw new Refused(`${source.file} is not valid JSON`);
    }
    const map = source.pick(json);
    if (map !== undefined) servers.push(...Object.entries(map));
  }
  const read = found.filter((s) => readIfExists(s.file) !== undefined).map((s) => s.file);
  if (read.length === 0)
    throw new Refused(`nothing to import: ${[...new Set(found.map((s) => s.file))].join(' or ')} not found`);
  const target = targetFile(options, io);
  const existing = new Set(serverNamesIn(target.file));
  const warnings: string[] = [];
  const added: [string, ServerEntry][] = [];
  for (const [name, value] of servers) {
    const shownName = terminalLine(name);
    if (existing.has(name) || added.some(([n]) => n === name)) {
      io.stderr(`furfly mcp import: skipped "${shownName}": already configured\n`);
      continue;
    }
    if (!SERVER_NAME.test(name) || name.includes('__')) {
      io.stderr(
        `furfly mcp import: skipped "${shownName}": a server name may hold only letters, digits, - and _ (no __); add it by hand under another name\n`,
      );
      continue;
    }
    const converted = fromClaudeServer(value);
    if (!converted.ok) {
      io.stderr(`furfly mcp import: skipped "${shownName}": ${converted.message}\n`);
      continue;
    }
    added.push([name, referencedSecrets(converted.server, io.env, warnings, name)]);
  }
  if (added.length === 0) {
    io.stdout(`no servers to import from ${read.map(terminalLine).join(', ')}\n`);
    return 0;
  }
  const result = editConfigFile(
    target.file,
    (doc: Document) => {
      for (const [name, server] of added) doc.setIn(['mcp_servers', name], doc.createNode(server));
    },
    checkerFor(io.env),
    { privateFile: target.scope === 'user' },
  );
  if (!result.ok) return refusedWrite(target.file, result.problems, io);
  for (const warning of warnings)
    io.stderr(`furfly mcp import: warning: ${terminalLine(target.file)}: ${terminalLine(warning)}\n`);
  io.stdout(
    `imported ${added.length} server${added.length === 1 ? '' : 's'} (${added.map(([n]) => n).join(', ')}) from ${read.map(terminalLine).join(', ')} into ${terminalLine(target.file)} (${target.scope} scope)\n`,
  );
  if (target.scope === 'project') io.stdout(TRUST_HINT);
  return 0;
}

interface ImportSource {
  readonly file: string;
  readonly pick: (json: unknown) => Record<string, unknown> | undefined;
}

/**
 * Where other clients keep their servers. Claude Desktop: `claude_desktop_config.json` in
 * `~/.config/Claude/` (Linux) or `~/Library/Application Support/Claude/` (macOS). Claude Code:
 * `~/.claude.json`, its user-wide `mcpServers` and those of this project (`projects[<path>].mcpServers`).
 */
function importSources(from: string, io: McpEditIo, options: McpEditOptions): ImportSource[] {
  const home = io.env.HOME !== undefined && io.env.HOME !== '' ? io.env.HOME : homedir();
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const projectRoot = locateConfigFiles({ cwd, env: io.env }).projectRoot ?? cwd;
  switch (from) {
    case 'claude-desktop':
      return [
        path.join(home, '.config', 'Claude', 'claude_desktop_config.json'),
        path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
      ].map((file) => ({ file, pick: claudeServerMap }));
    case 'claude-code': {
      const file = path.join(home, '.claude.json');
      const keys = [...new Set([projectRoot, projectKey(projectRoot), cwd])];
      const pick = (json: unknown): Record<string, unknown> | undefined => {
        const projects = (json as { projects?: Record<string, unknown> } | null)?.projects;
        const perProject = keys.map((key) =>
          projects !== undefined && Object.hasOwn(projects, key) ? claudeServerMap(projects[key]) : undefined,
        );
        return Object.assign({}, claudeServerMap(json), ...perProject);
      };
      return [{ file, pick }];
    }
    case '.mcp.json':
      return [{ file: path.join(projectRoot, '.mcp.json'), pick: claudeServerMap }];
    default:
      return [{ file: path.resolve(cwd, from), pick: claudeServerMap }];
  }
}

// ---- shared --------------------------------------------------------------------------------------

function targetFile(options: McpEditOptions, io: McpEditIo, quiet = false): { file: string; scope: Scope } {
  const scope = options.scope ?? 'user';
  if (scope === 'local') {
    throw new UsageError(
      'furfly has no "local" scope: use --scope user (your own file, the default) or --scope project (.furflycode/config.yaml, shared)',
    );
  }
  if (scope !== 'user' && scope !== 'project') {
    throw new UsageError(`--scope must be one of: user, project (got "${terminalLine(scope)}")`);
  }
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const locations = locateConfigFiles({ cwd, configFile: options.config, env: io.env });
  if (scope === 'user') return { file: locations.user.path, scope };
  if (locations.project === undefined) {
    if (quiet) return { file: locations.user.path, scope: 'user' };
    throw new Refused(
      'this folder is your home folder, whose .furflycode/config.yaml is the user file: use --scope user',
    );
  }
  // A shared file that links elsewhere (the user file, say): editing it would write its target's text,
  // tokens included, into the repository as a plain file.
  if (isSymbolicLink(locations.project.path)) {
    throw new Refused(
      `${terminalLine(locations.project.path)} is a symbolic link: furfly does not edit a project file that points elsewhere (replace it with a plain file first)`,
    );
  }
  return { file: locations.project.path, scope };
}

function isSymbolicLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function checkName(name: string): void {
  if (!SERVER_NAME.test(name) || name.includes('__')) {
    throw new UsageError(
      `"${terminalLine(name)}" is not a server name: use letters, digits, - and _ (no __)`,
    );
  }
}

/** The server names in a furfly config file as written (none when it is missing or unreadable). */
function serverNamesIn(file: string): string[] {
  const text = readIfExists(file);
  if (text === undefined) return [];
  // The loader reports broken files; here only the names matter.
  try {
    const doc = YAML.parseDocument(text);
    const servers = doc.toJS()?.mcp_servers;
    return typeof servers === 'object' && servers !== null ? Object.keys(servers) : [];
  } catch {
    return [];
  }
}

/**
 * The loader's verdict on a candidate file alone: every error except unset variables (a reference the
 * person will export later is not a broken file).
 */
function checkerFor(env: Env): CandidateCheck {
  return (candidate) => {
    const emptyHome = mkdtempSync(path.join(tmpdir(), 'furfly-check-'));
    try {
      const loaded = loadConfig({
        cwd: path.dirname(candidate),
        configFile: candidate,
        env: { ...env, FURFLY_HOME: emptyHome },
        trustProject: true,
      });
      if (loaded.ok) return [];
      return loaded.errors
        .filter((e) => !/references undefined variable/.test(e.message))
        .map(formatConfigError);
    } finally {
      rmSync(emptyHome, { recursive: true, force: true });
    }
  };
}

function refusedWrite(file: string, problems: readonly string[], io: McpEditIo): number {
  io.stderr(
    `${problems.map((p) => terminalText(p)).join('\n')}\nfurfly mcp: not written: ${terminalLine(file)} would not be a valid config (nothing was changed)\n`,
  );
  return 1;
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function parseEnv(pairs: readonly string[], env: Env, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`-e takes KEY=VALUE (got "${terminalLine(pair.slice(0, 40))}")`);
    const key = pair.slice(0, eq);
    const ref = withEnvReferences(pair.slice(eq + 1), env, key);
    if (ref.literalSecret) warnings.push(literalWarning(`env ${key}`, `-e ${key}='\${${key}}'`));
    out[key] = ref.value;
  }
  return out;
}

function parseHeaders(lines: readonly string[], env: Env, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon <= 0 ? '' : line.slice(0, colon).trim();
    if (name === '') throw new UsageError('--header takes "Name: value"');
    const ref = withEnvReferences(line.slice(colon + 1).trim(), env);
    if (ref.literalSecret) warnings.push(literalWarning(`header ${name}`, `--header '${name}: \${TOKEN}'`));
    out[name] = ref.value;
  }
  return out;
}

/** A server block from JSON (add-json, import): its env and header values, as `parseEnv` treats them. */
function referencedSecrets(server: ServerEntry, env: Env, warnings: string[], label?: string): ServerEntry {
  const out: ServerEntry = { ...server };
  for (const field of ['env', 'headers'] as const) {
    const values = server[field];
    if (typeof values !== 'object' || values === null || Array.isArray(values)) continue;
    const rewritten: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) {
      if (typeof value !== 'string') {
        rewritten[key] = value;
        continue;
      }
      const ref = withEnvReferences(value, env, field === 'env' ? key : undefined);
      if (ref.literalSecret) {
        warnings.push(
          `${label === undefined ? '' : `server ${label}: `}${field === 'env' ? 'env' : 'header'} ${key} is written as plain text (write \${VARIABLE} and export it to keep it out of the file)`,
        );
      }
      rewritten[key] = ref.value;
    }
    out[field] = rewritten;
  }
  return out;
}

function literalWarning(what: string, instead: string): string {
  return `${what} is written as plain text (not from an environment variable); to keep it out of the file, export it and write ${instead}`;
}
