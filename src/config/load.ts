/**
 * The one entry point: find the layers, parse, merge, expand, validate, fill defaults.
 * Never throws for a user's mistake: every problem comes back as a `ConfigError`, all of them at once.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { keepCredentialsWithEndpoint, type WithheldCredentials } from './credentials.js';
import { applyDefaults } from './defaults.js';
import type { ConfigError } from './errors.js';
import { type Env, expandConfig } from './expand.js';
import { parseMcpJson } from './mcp-json.js';
import { findDuplicateNames, mergeLayers, withoutEmptyValues } from './merge.js';
import type { Origin } from './origin.js';
import { CONFIG_LIMITS, parseConfigText } from './parse.js';
import { type ConfigLocations, type LayerLocation, locateConfigFiles, userConfigDir } from './paths.js';
import { decideProjectTrust, type ProjectTrust } from './project-trust.js';
import { displayPath, emptyMap, type MapNode, primaryOrigin, toPlain, toPointer, walk } from './tree.js';
import type { ResolvedConfig } from './types.js';
import { validateTree } from './validate.js';
import { referencedVariables } from './variables.js';

export interface LoadOptions {
  /** Where furfly runs; the project root is searched from here. */
  readonly cwd: string;
  /** `--config FILE` (relative to `cwd`): used instead of the project file; the user file still applies. */
  readonly configFile?: string | undefined;
  /** The environment for `${VAR}` expansion and `FURFLY_HOME`; pass `process.env` from the CLI. */
  readonly env: Env;
  /** Home directory, when not the OS's (tests). */
  readonly homeDir?: string | undefined;
  /**
   * Whether the project layer's risky parts apply (see trust.ts): true for `--trust-project` (this run
   * only), false never, absent when the person's trust store decides (the default, and the only safe one
   * for a program that did not ask the person).
   */
  readonly trustProject?: boolean | undefined;
}

export interface ConfigFileStatus {
  readonly layer: 'user' | 'project';
  readonly path: string;
  readonly found: boolean;
  /** Named with `--config`. */
  readonly explicit: boolean;
}

export interface ConfigFiles {
  readonly user: ConfigFileStatus;
  /** Absent when there is no project root and no `--config`. */
  readonly project?: ConfigFileStatus;
  /** The project's `.mcp.json`, a second project source; absent with `--config`. */
  readonly mcpJson?: ConfigFileStatus;
  readonly projectRoot?: string;
  /** Paths of the files actually read, user first. */
  readonly inEffect: readonly string[];
}

export type LoadResult =
  | {
      readonly ok: true;
      /** Validated, expanded, with every default filled in. Holds secrets: never print it; see `toMaskedPlain`. */
      readonly config: ResolvedConfig;
      /** JSON pointer (`/mcp_servers/github/env/TOKEN`) -> where that value was written, or 'default'. */
      readonly origins: ReadonlyMap<string, Origin>;
      /** The located tree behind `config`, for display with origins and masking. */
      readonly tree: MapNode;
      readonly files: ConfigFiles;
      /**
       * Every value that `${VAR}` expansion took from the environment (in URLs, args, headers...).
       * Secret wherever it appears: messages about servers redact them (see mcp/transport-factory.ts).
       */
      readonly secretValues: readonly string[];
      /**
       * The names of the environment variables the config references through `${VAR}` (see variables.ts).
       * The agent removes them from the bash tool's environment.
       */
      readonly referencedVariables: readonly string[];
      /** What the project layer may do in this run, and what of it was left out. */
      readonly trust: ProjectTrust;
      /** User-layer secrets not sent because another layer changed their endpoint (see credentials.ts). */
      readonly withheld: readonly WithheldCredentials[];
    }
  | {
      readonly ok: false;
      readonly errors: readonly ConfigError[];
      readonly files: ConfigFiles;
      /** Absent when a file could not be read. */
      readonly trust?: ProjectTrust;
    };

export function loadConfig(options: LoadOptions): LoadResult {
  const locations = locateConfigFiles(options);
  const user = readLayer(locations.user);
  const project = locations.project === undefined ? undefined : readLayer(locations.project);
  const mcpJson = locations.mcpJson === undefined ? undefined : readLayer(locations.mcpJson, parseMcpJson);
  const files = describeFiles(locations, user, project, mcpJson);

  const readErrors = [...user.errors, ...(mcpJson?.errors ?? []), ...(project?.errors ?? [])];
  if (readErrors.length > 0) return { ok: false, errors: readErrors, files };
  const firstRoot = user.root ?? mcpJson?.root ?? project?.root;
  if (firstRoot === undefined) {
    return { ok: false, errors: [{ message: noConfigMessage(locations) }], files };
  }

  const userRoot = user.root ?? emptyMap(primaryOrigin(firstRoot));
  // The project layer's sources, weakest first: `.mcp.json`, then furfly's own file, which wins.
  const sources = [mcpJson, project].flatMap((read) =>
    read?.root === undefined ? [] : [{ file: read.location.path, root: read.root }],
  );
  const { trust, effective } = decideProjectTrust({
    user: userRoot,
    sources,
    projectRoot: locations.projectRoot ?? options.cwd,
    userDir: userConfigDir(options.env, options.homeDir),
    trustProject: options.trustProject,
  });
  const sourceMerge = effective.length === 2 ? mergeLayers(effective[0]!, effective[1]!) : undefined;
  const effectiveProject = sourceMerge?.root ?? effective[0] ?? emptyMap(primaryOrigin(userRoot));
  const projectRoot =
    sources.length === 2
      ? mergeLayers(sources[0]!.root, sources[1]!.root).root
      : (sources[0]?.root ?? emptyMap(primaryOrigin(userRoot)));
  const duplicateErrors = [userRoot, ...effective].flatMap((root) => findDuplicateNames(root));
  const merged = mergeLayers(userRoot, effectiveProject);
  const credentials = keepCredentialsWithEndpoint(userRoot, effectiveProject, merged.root);
  const expanded = expandConfig(credentials.root, options.env);
  // A value whose variable is undefined is still `${VAR}`: its validation complaint would only repeat that.
  // Shape conflicts already explain their place; the values below it are still checked.
  // A disabled server's `${URL}` stays as written and would fail the URL pattern for a server never started.
  // A provider whose key was withheld has its own error (credentials.ts), not "missing api_key".
  const withheldProviders = new Set(
    credentials.withheld.filter((w) => w.entry[0] === 'providers').map((w) => displayPath(w.entry)),
  );
  const alreadyReported = (p: string): boolean =>
    expanded.failedPaths.has(p) ||
    expanded.unexpandedPaths.has(p) ||
    merged.conflictPaths.has(p) ||
    withheldProviders.has(p);
  const validationErrors = validateTree(expanded.root).filter(
    (e) => e.path === undefined || !alreadyReported(e.path),
  );
  const errors = [
    ...duplicateErrors,
    ...(sourceMerge?.errors ?? []),
    ...merged.errors,
    ...credentials.errors,
    ...expanded.errors,
    ...validationErrors,
  ];
  if (errors.length > 0) return { ok: false, errors: sortErrors(errors, files.inEffect), files, trust };

  const tree = applyDefaults(expanded.root);
  return {
    ok: true,
    config: toPlain(tree) as ResolvedConfig,
    origins: originsOf(tree),
    tree,
    files,
    secretValues: [
      ...new Set([...expanded.secretValues, ...heldBackSecrets(userRoot, credentials.withheld, options.env)]),
    ],
    // Every variable either layer names, ignored parts included: none of them is meant for bash.
    referencedVariables: [
      ...new Set([...referencedVariables(userRoot), ...referencedVariables(projectRoot)]),
    ].sort(),
    trust,
    withheld: credentials.withheld,
  };
}

interface LayerRead {
  readonly location: LayerLocation;
  readonly found: boolean;
  readonly root?: MapNode;
  readonly errors: readonly ConfigError[];
}

type LayerParser = (file: string, text: string) => ReturnType<typeof parseConfigText>;

function readLayer(location: LayerLocation, parse: LayerParser = parseConfigText): LayerRead {
  let text: string;
  try {
    const read = readBoundedFile(location.path);
    if (typeof read !== 'string') {
      return {
        location,
        found: true,
        errors: [{ origin: { file: location.path, line: 1, col: 1 }, message: read.problem }],
      };
    }
    text = read;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    if (code === 'ENOENT' && !location.explicit) return { location, found: false, errors: [] };
    const message =
      code === 'ENOENT'
        ? 'config file not found (given with --config)'
        : `cannot read the config file (${code})`;
    return {
      location,
      found: false,
      errors: [{ origin: { file: location.path, line: 1, col: 1 }, message }],
    };
  }
  const parsed = parse(location.path, text);
  if (!parsed.ok) return { location, found: true, errors: parsed.errors };
  return { location, found: true, root: withoutEmptyValues(parsed.root), errors: [] };
}

/**
 * The file's text, or why it was not read. A config file can come with a cloned repository, so it may
 * be a link to /dev/zero or a FIFO (opened non-blocking: a FIFO with no writer would wait for ever), or
 * simply huge: only a regular file of at most CONFIG_LIMITS.maxBytes is read.
 */
function readBoundedFile(file: string): string | { problem: string } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) {
      const error = new Error('EISDIR') as NodeJS.ErrnoException;
      error.code = 'EISDIR';
      throw error;
    }
    if (!info.isFile()) return { problem: 'not a regular file (a FIFO, socket or device); it was not read' };
    const limit = CONFIG_LIMITS.maxBytes;
    const tooLarge = {
      problem: `the config file is larger than ${limit / (1024 * 1024)} MiB; a config never needs that much, so it was not read`,
    };
    if (info.size > limit) return tooLarge;
    // One byte more than allowed: a file that grew since fstat is caught too.
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, length);
      if (n === 0) break;
      length += n;
      if (length > limit) return tooLarge;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

function describeFiles(
  locations: ConfigLocations,
  user: LayerRead,
  project: LayerRead | undefined,
  mcpJson: LayerRead | undefined,
): ConfigFiles {
  const status = (read: LayerRead): ConfigFileStatus => ({
    layer: read.location.layer,
    path: read.location.path,
    found: read.found,
    explicit: read.location.explicit,
  });
  const inEffect = [user, mcpJson, project].filter((r) => r?.found === true).map((r) => r!.location.path);
  return {
    user: status(user),
    ...(project === undefined ? {} : { project: status(project) }),
    ...(mcpJson === undefined ? {} : { mcpJson: status(mcpJson) }),
    ...(locations.projectRoot === undefined ? {} : { projectRoot: locations.projectRoot }),
    inEffect,
  };
}

function noConfigMessage(locations: ConfigLocations): string {
  const projectLine =
    locations.project !== undefined
      ? locations.project.path
      : 'none: no folder with .furflycode/ or .git at or above the working directory';
  const suggested = locations.project?.path ?? locations.user.path;
  return [
    'no config file found. furfly looked for:',
    `  user file:    ${locations.user.path} (the folder can be moved with FURFLY_HOME)`,
    `  project file: ${projectLine}`,
    ...(locations.mcpJson === undefined
      ? []
      : [`  shared file:  ${locations.mcpJson.path} (.mcp.json, as Claude Code writes it)`]),
    `Add a server with \`furfly mcp add NAME -- COMMAND [ARGS...]\` (or \`furfly config init\`), or create ${suggested}, for example:`,
    '  mcp_servers:',
    '    everything:',
    '      type: stdio',
    '      command: npx',
    '      args: ["-y", "@modelcontextprotocol/server-everything"]',
    'See docs/config.md for every key.',
  ].join('\n');
}

function originsOf(tree: MapNode): Map<string, Origin> {
  const origins = new Map<string, Origin>();
  walk(tree, (node, path) => origins.set(toPointer(path), primaryOrigin(node)));
  return origins;
}

/** Errors in reading order: user file before project file, then by line and column. */
function sortErrors(errors: readonly ConfigError[], files: readonly string[]): ConfigError[] {
  const rank = (e: ConfigError): [number, number, number] => {
    const o = e.origin;
    if (o === undefined || o === 'default') return [-1, 0, 0];
    const fileIndex = files.indexOf(o.file);
    return [fileIndex === -1 ? files.length : fileIndex, o.line, o.col];
  };
  return errors
    .map((e, i) => ({ e, i, r: rank(e) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2] || a.i - b.i)
    .map((x) => x.e);
}

/**
 * The user's secrets in entries whose credentials were held back from an endpoint another file chose.
 * They are never sent, but they stay secrets: a repository's file may paste such a value elsewhere (an
 * argument, a URL), and every output must still mask it. Expanded here only to be known, never used.
 */
function heldBackSecrets(userRoot: MapNode, withheld: readonly WithheldCredentials[], env: Env): string[] {
  if (withheld.length === 0) return [];
  const expanded = expandConfig(userRoot, env);
  const user = toPlain(expanded.root) as {
    mcp_servers?: Record<string, { env?: unknown; headers?: unknown }>;
    providers?: { name?: unknown; api_key?: unknown }[];
  };
  const values = [...expanded.secretValues];
  const strings = (record: unknown): string[] =>
    typeof record === 'object' && record !== null
      ? Object.values(record).filter((v): v is string => typeof v === 'string')
      : [];
  for (const w of withheld) {
    if (w.entry[0] === 'mcp_servers') {
      const server = user.mcp_servers?.[String(w.entry[1])];
      values.push(...strings(server?.env), ...strings(server?.headers));
    }
  }
  for (const provider of user.providers ?? []) {
    if (typeof provider.api_key === 'string') values.push(provider.api_key);
  }
  return values.filter((value) => value.length > 0);
}
