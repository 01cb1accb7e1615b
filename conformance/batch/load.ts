/**
 * Reads the files given to `--batch`: furfly batch files (schemas/batch.schema.json, YAML or JSON),
 * MCP registry server.json files and registry listings. Returns one entry per server, names unique.
 * A file that cannot be read or does not fit its format is a BatchFileError naming the file and the
 * place in it; a server that lacks a value is an entry that is not runnable, so the rest still run.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expandString } from '../../src/config/expand.js';
import type { Server as BatchServer, Flags } from '../../src/generated/batch/types.js';
import { validateBatch } from '../../src/generated/batch/validate.js';
import { isProtocolVersion, PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';
import { Redactor } from '../../src/redaction/index.js';
import { errorText } from '../../src/util/error-text.js';
import { describeUrl } from '../server/probe/http.js';
import { type BatchEntry, type EntryFlags, uniqueNames } from './entries.js';
import { registryEntries, serverJsonsOf } from './registry.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A batch file that cannot be used at all; the message names the file and what is wrong. */
export class BatchFileError extends Error {
  override readonly name = 'BatchFileError';
}

export interface LoadOptions {
  /**
   * The values the user passed explicitly (`--env NAME`, `--env NAME=value`): the only values `${VAR}` in
   * a batch file and `{placeholder}`s and variables of a server.json may take. Never furfly's whole
   * environment: these files may come from someone else. Default: none.
   */
  env?: Env;
}

function parseFile(file: string): unknown {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BatchFileError(`${file}: cannot read it (${errorText(error)})`);
  }
  try {
    return file.endsWith('.json') ? JSON.parse(source) : parseYaml(source);
  } catch (error) {
    throw new BatchFileError(
      `${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${errorText(error)}`,
    );
  }
}

/** Every server of every file, in the order given. */
export function loadBatchFiles(files: readonly string[], options: LoadOptions = {}): BatchEntry[] {
  const env = options.env ?? {};
  const entries: BatchEntry[] = [];
  for (const file of files) entries.push(...entriesOfFile(file, env, {}));
  return uniqueNames(entries);
}

function entriesOfFile(file: string, env: Env, inherited: EntryFlags): BatchEntry[] {
  const document = parseFile(file);
  const origin = path.basename(file);
  const servers = serverJsonsOf(document);
  if (servers !== undefined) {
    return servers.flatMap((server) => registryEntries(server, { origin, env, flags: inherited }));
  }
  if (!validateBatch(document)) {
    const error = (validateBatch.errors ?? []).reduce((deepest, candidate) =>
      candidate.instancePath.length > deepest.instancePath.length ? candidate : deepest,
    );
    const where = error?.instancePath || '/';
    throw new BatchFileError(
      `${file}: not a furfly batch file, server.json or registry listing: at ${where}: ${error?.message ?? 'invalid'}`,
    );
  }
  const list = Array.isArray(document) ? document : document.servers;
  const defaults = Array.isArray(document) ? {} : flagsOf(document.defaults ?? {}, file, '/defaults');
  const folder = path.dirname(path.resolve(file));
  return list.flatMap((server, index) => {
    const flags = { ...inherited, ...defaults, ...flagsOf(server, file, `/servers/${index}`) };
    return serverEntries(server, { file, folder, origin: `${origin}#${index}`, env, flags });
  });
}

function flagsOf(flags: Flags, file: string, where: string): EntryFlags {
  const result: EntryFlags = {};
  if (flags.call_tools !== undefined) result.callTools = flags.call_tools;
  if (flags.spec_version !== undefined) {
    if (!isProtocolVersion(flags.spec_version)) {
      throw new BatchFileError(
        `${file}: at ${where}/spec_version: must be one of ${PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    result.specVersion = flags.spec_version;
  }
  if (flags.timeout !== undefined) result.timeoutMs = flags.timeout;
  if (flags.server_timeout !== undefined) result.serverTimeoutMs = flags.server_timeout;
  if (flags.only !== undefined) result.only = flags.only;
  if (flags.skip !== undefined) result.skip = flags.skip;
  return result;
}

interface EntryContext {
  file: string;
  folder: string;
  origin: string;
  env: Env;
  flags: EntryFlags;
}

/** `${VAR}` in the given strings; collects values from the environment as secrets, and missing names. */
class Expander {
  readonly secrets: string[] = [];
  readonly missing: string[] = [];
  constructor(private readonly env: Env) {}
  expand(text: string): string {
    const result = expandString(text, this.env, (value) => this.secrets.push(value));
    for (const name of result.undefinedVariables) if (!this.missing.includes(name)) this.missing.push(name);
    return result.value;
  }
  map(values: Record<string, string> | undefined): Record<string, string> {
    return Object.fromEntries(Object.entries(values ?? {}).map(([key, value]) => [key, this.expand(value)]));
  }
  reason(): string | undefined {
    if (this.missing.length === 0) return undefined;
    const names = this.missing.join(', ');
    const flags = this.missing.map((name) => `--env ${name}`).join(' ');
    return `needs the variable${this.missing.length > 1 ? 's' : ''} ${names}, which ${this.missing.length > 1 ? 'were' : 'was'} not passed (${flags})`;
  }
}

function serverEntries(server: BatchServer, context: EntryContext): BatchEntry[] {
  if ('registry' in server) {
    const file = path.resolve(context.folder, server.registry);
    const document = parseFile(file);
    const servers = serverJsonsOf(document);
    if (servers === undefined) {
      throw new BatchFileError(
        `${context.file}: ${server.registry} is not a server.json or registry listing`,
      );
    }
    const prefix = servers.length === 1 ? server.name : undefined;
    return servers.flatMap((json) =>
      registryEntries(json, {
        origin: path.basename(file),
        env: context.env,
        flags: context.flags,
        ...(prefix === undefined ? {} : { namePrefix: prefix }),
      }),
    );
  }
  const expander = new Expander(context.env);
  if ('url' in server) {
    const url = expander.expand(server.url);
    const headers = Object.fromEntries(
      Object.entries(expander.map(server.headers)).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const secrets = [...expander.secrets, ...Object.values(headers)];
    const display = { transport: 'http' as const, url: new Redactor(secrets).text(describeUrl(url)) };
    const reason = expander.reason();
    const base = { name: server.name, origin: context.origin, display, flags: context.flags };
    if (reason !== undefined) return [{ ...base, notRunnable: reason, secrets: [] }];
    return [{ ...base, target: { transport: 'http', url, headers }, secrets }];
  }
  const command = expander.expand(server.command);
  const args = (server.args ?? []).map((arg) => expander.expand(arg));
  const env = expander.map(server.env);
  const cwd =
    server.cwd === undefined ? undefined : path.resolve(context.folder, expander.expand(server.cwd));
  const secrets = [...expander.secrets, ...Object.values(env)];
  const outside = cwd === undefined ? undefined : cwdOutside(cwd, context.folder);
  const display = {
    transport: 'stdio' as const,
    command: new Redactor(secrets).text([command, ...args].join(' ')),
  };
  const reason = expander.reason() ?? outside;
  const base = { name: server.name, origin: context.origin, display, flags: context.flags };
  if (reason !== undefined) return [{ ...base, notRunnable: reason, secrets: [] }];
  return [
    {
      ...base,
      target: { transport: 'stdio', command: { command, args, env, ...(cwd === undefined ? {} : { cwd }) } },
      secrets,
    },
  ];
}

/**
 * Why `cwd` may not be used, or undefined: a server's folder must lie under the batch file's folder (its
 * real path, symlinks followed), so a list cannot start a server in, or mount, the home folder.
 */
function cwdOutside(cwd: string, folder: string): string | undefined {
  const real = (p: string): string => {
    try {
      return realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const relative = path.relative(real(folder), real(cwd));
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) return undefined;
  return `its cwd ${cwd} is not under the batch file's folder ${folder}`;
}
