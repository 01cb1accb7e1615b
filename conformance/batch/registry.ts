/**
 * MCP registry `server.json` files (and registry listings of them) as batch entries: each package
 * becomes the command a user would type, each remote a URL with its headers.
 *
 *   npm   → npx -y [runtime args] <identifier>@<version> [package args]
 *   pypi  → uvx [runtime args] <identifier>==<version> [package args]
 *   oci   → docker run -i --rm [runtime args] -e NAME… <identifier>:<version> [package args]
 *   remotes[] streamable-http → the URL with its headers
 *
 * Values come from the server.json (`value`, `default`) and from the values the user passed with
 * `--env NAME` or `--env NAME=value` (`env` here holds those alone, never furfly's whole environment):
 * a declared environment variable by its name, a `{placeholder}` in a value by the placeholder's name,
 * and only when the input declares that placeholder in its `variables`. A server.json is someone else's
 * file: it must not be able to send a CI runner's tokens to its own remote URL or pull
 * ANTHROPIC_API_KEY into its package. An input that is required and has no value makes the entry not
 * runnable, and the reason names it (and the `--env` that would supply it). `runtimeHint` may only name
 * a runtime from RUNTIME_HINTS: `sh -c` is not a runtime; docker and podman only for oci packages, whose
 * runtime arguments pass only the `docker run` options of container-arguments.ts (no `--privileged`, no
 * host mounts). Facts about the
 * format: modelcontextprotocol.io/registry (package types, remote servers) and the server.json
 * reference in the registry repository.
 */
import { Redactor } from '../../src/redaction/index.js';
import { describeUrl } from '../server/probe/http.js';
import { containerArgumentsProblem } from './container-arguments.js';
import type { BatchEntry, EntryFlags } from './entries.js';

type Json = Record<string, unknown>;
type Env = Readonly<Record<string, string | undefined>>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A value could not be resolved: the entry is not runnable, and `what` says which input was missing. */
class MissingValue extends Error {}

/** Resolves one input (argument, environment variable, header) to its value, or undefined if optional and absent. */
function resolveInput(
  input: Json,
  env: Env,
  envName: string | undefined,
  what: string,
  secrets: string[],
): string | undefined {
  const fixed = text(input.value);
  let value: string | undefined;
  if (fixed !== undefined) {
    value = fillPlaceholders(fixed, input, env, what, secrets);
  } else {
    const fromEnv = envName === undefined || !Object.hasOwn(env, envName) ? undefined : env[envName];
    if (fromEnv !== undefined && fromEnv !== '') {
      value = fromEnv;
      secrets.push(fromEnv);
    } else {
      value = text(input.default);
    }
  }
  if (value === undefined && input.isRequired === true) throw new MissingValue(what);
  if (value !== undefined && input.isSecret === true) secrets.push(value);
  return value;
}

/**
 * `{name}` in a value, for a variable the input declares: the value passed with `--env name`, else the
 * variable's own value or default. An undeclared `{name}` is text, whatever was passed.
 */
function fillPlaceholders(value: string, input: Json, env: Env, what: string, secrets: string[]): string {
  const variables = isObject(input.variables) ? input.variables : {};
  return value.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (whole, name: string) => {
    const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
    // Not declared as a variable: braces that are part of the value.
    if (!isObject(variable)) return whole;
    const passed = Object.hasOwn(env, name) ? env[name] : undefined;
    if (passed !== undefined && passed !== '') {
      secrets.push(passed);
      return passed;
    }
    const fallback = text(variable.value) ?? text(variable.default);
    if (fallback !== undefined) return fallback;
    throw new MissingValue(`${what}: variable ${name} (pass it with --env ${name})`);
  });
}

/** The runtimes a server.json's `runtimeHint` may choose; anything else makes the package not runnable. */
export const RUNTIME_HINTS = new Set([
  'npx',
  'uvx',
  'docker',
  'podman',
  'node',
  'python3',
  'python',
  'uv',
  'pipx',
  'bunx',
  'deno',
  'pnpm',
  'yarn',
  'dnx',
]);

function argumentWords(args: unknown, env: Env, secrets: string[]): string[] {
  const words: string[] = [];
  for (const [index, raw] of list(args).entries()) {
    if (!isObject(raw)) continue;
    const name = text(raw.name);
    const label =
      raw.type === 'named' && name !== undefined
        ? `argument ${name}`
        : `positional argument ${text(raw.valueHint) ?? index + 1}`;
    const value = resolveInput(raw, env, undefined, `a value for ${label}`, secrets);
    if (raw.type === 'named' && name !== undefined) {
      if (value === undefined) continue;
      words.push(name, value);
    } else if (value !== undefined) {
      words.push(value);
    }
  }
  return words;
}

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The command line for one package, or a MissingValue / a string reason it cannot run. */
function launchOf(pkg: Json, env: Env, secrets: string[]): Launch | string {
  const type = text(pkg.registryType);
  const identifier = text(pkg.identifier);
  const version = text(pkg.version);
  if (identifier === undefined) return 'the package has no identifier';
  const transport = isObject(pkg.transport) ? text(pkg.transport.type) : 'stdio';
  if (transport !== undefined && transport !== 'stdio') {
    return `the package serves ${transport}: start it yourself and list its URL in the batch file`;
  }
  const serverEnv: Record<string, string> = {};
  for (const variable of list(pkg.environmentVariables)) {
    if (!isObject(variable)) continue;
    const name = text(variable.name);
    if (name === undefined) continue;
    const value = resolveInput(
      variable,
      env,
      name,
      `environment variable ${name} (pass it with --env ${name})`,
      secrets,
    );
    if (value !== undefined) serverEnv[name] = value;
  }
  const runtimeArgs = argumentWords(pkg.runtimeArguments, env, secrets);
  const packageArgs = argumentWords(pkg.packageArguments, env, secrets);
  const hint = text(pkg.runtimeHint);
  if (hint !== undefined && !RUNTIME_HINTS.has(hint)) {
    return `its runtimeHint ${JSON.stringify(hint)} is not a runtime furfly starts (${[...RUNTIME_HINTS].join(', ')})`;
  }
  // A container engine runs only an oci package, and an oci package runs only in one: `uvx` hinted to
  // `docker` would pass the runtime arguments straight to `docker run`.
  const containerHint = hint === 'docker' || hint === 'podman';
  if (containerHint && type !== 'oci') {
    return `its runtimeHint ${JSON.stringify(hint)} is for oci packages, not ${type ?? 'untyped'} ones`;
  }
  if (type === 'oci' && hint !== undefined && !containerHint) {
    return `its runtimeHint ${JSON.stringify(hint)} does not run oci images (docker or podman do)`;
  }
  switch (type) {
    case 'npm': {
      const ref = version ? `${identifier}@${version}` : identifier;
      return { command: hint ?? 'npx', args: ['-y', ...runtimeArgs, ref, ...packageArgs], env: serverEnv };
    }
    case 'pypi': {
      const ref = version ? `${identifier}==${version}` : identifier;
      return { command: hint ?? 'uvx', args: [...runtimeArgs, ref, ...packageArgs], env: serverEnv };
    }
    case 'oci': {
      // An identifier that already names a tag or digest keeps it.
      const refused = containerArgumentsProblem(runtimeArgs);
      if (refused !== undefined) return refused;
      // The identifier stands where the engine reads options until the image: `--privileged` there
      // would pass the fence above, and the first package argument would become the image.
      if (identifier.startsWith('-')) {
        return `its identifier ${JSON.stringify(identifier)} is read as an option by the container engine, not as an image`;
      }
      const tagged = /@sha256:|:[^/]+$/.test(identifier);
      const ref = version && !tagged ? `${identifier}:${version}` : identifier;
      // The container sees a variable only when passed by name; its value stays in docker's environment.
      const passEnv = Object.keys(serverEnv).flatMap((name) => ['-e', name]);
      return {
        command: hint ?? 'docker',
        args: ['run', '-i', '--rm', ...runtimeArgs, ...passEnv, ref, ...packageArgs],
        env: serverEnv,
      };
    }
    default:
      return `furfly does not start ${type ?? 'untyped'} packages (it starts npm, pypi and oci)`;
  }
}

function remoteEntry(
  remote: Json,
  env: Env,
  secrets: string[],
): { url: string; headers: Record<string, string> } | string {
  const type = text(remote.type);
  if (type === 'sse') {
    return 'the remote uses the HTTP+SSE transport of 2024-11-05, which furfly does not vet (it vets Streamable HTTP)';
  }
  if (type !== 'streamable-http') return `unknown remote type ${type ?? '(none)'}`;
  const rawUrl = text(remote.url);
  if (rawUrl === undefined) return 'the remote has no url';
  const url = fillPlaceholders(rawUrl, remote, env, 'the remote URL', secrets);
  const headers: Record<string, string> = {};
  for (const header of list(remote.headers)) {
    if (!isObject(header)) continue;
    const name = text(header.name);
    if (name === undefined) continue;
    const value = resolveInput(header, env, undefined, `a value for header ${name}`, secrets);
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return { url, headers };
}

/** The server.json objects in a parsed file: one server.json, or a registry listing `{servers: [...]}`. */
export function serverJsonsOf(document: unknown): Json[] | undefined {
  if (isObject(document) && Array.isArray(document.servers)) {
    const items = document.servers.map((item) =>
      isObject(item) && isObject(item.server) ? item.server : item,
    );
    return items.every(
      (item) => isObject(item) && (item.packages !== undefined || item.remotes !== undefined),
    )
      ? (items as Json[])
      : undefined;
  }
  if (isObject(document) && (Array.isArray(document.packages) || Array.isArray(document.remotes))) {
    return [document];
  }
  return undefined;
}

/** The batch entries of one server.json: one per package and per remote. */
export function registryEntries(
  server: Json,
  options: { origin: string; env: Env; flags: EntryFlags; namePrefix?: string },
): BatchEntry[] {
  const base = options.namePrefix ?? text(server.name) ?? 'unnamed';
  const packages = list(server.packages).filter(isObject);
  const remotes = list(server.remotes).filter(isObject);
  const several = packages.length + remotes.length > 1;
  const entries: BatchEntry[] = [];
  for (const [index, pkg] of packages.entries()) {
    const secrets: string[] = [];
    const name = several ? `${base} (${text(pkg.registryType) ?? 'package'})` : base;
    const origin = `${options.origin}#packages[${index}]`;
    let launch: Launch | string;
    try {
      launch = launchOf(pkg, options.env, secrets);
    } catch (error) {
      if (!(error instanceof MissingValue)) throw error;
      launch = `needs ${error.message}, which was not supplied`;
    }
    if (typeof launch === 'string') {
      const display = {
        transport: 'stdio' as const,
        command: `${text(pkg.registryType) ?? '?'} ${text(pkg.identifier) ?? ''}`.trim(),
      };
      entries.push({ name, origin, display, notRunnable: launch, flags: options.flags, secrets: [] });
      continue;
    }
    const redactor = new Redactor(secrets);
    entries.push({
      name,
      origin,
      display: { transport: 'stdio', command: redactor.text([launch.command, ...launch.args].join(' ')) },
      target: {
        transport: 'stdio',
        // Only the variables the server.json names; the batch runner adds the rest of the environment.
        command: { command: launch.command, args: launch.args, env: launch.env },
      },
      flags: options.flags,
      secrets,
      minimalEnvironment: true,
    });
  }
  for (const [index, remote] of remotes.entries()) {
    const secrets: string[] = [];
    const name = several ? `${base} (remote ${text(remote.type) ?? ''})`.replace(' )', ')') : base;
    const origin = `${options.origin}#remotes[${index}]`;
    let resolved: ReturnType<typeof remoteEntry>;
    try {
      resolved = remoteEntry(remote, options.env, secrets);
    } catch (error) {
      if (!(error instanceof MissingValue)) throw error;
      resolved = `needs ${error.message}, which was not supplied`;
    }
    const shownUrl = (url: string | undefined) => (url === undefined ? '' : safeUrl(url));
    if (typeof resolved === 'string') {
      entries.push({
        name,
        origin,
        display: { transport: 'http', url: shownUrl(text(remote.url)) },
        notRunnable: resolved,
        flags: options.flags,
        secrets: [],
      });
      continue;
    }
    entries.push({
      name,
      origin,
      display: { transport: 'http', url: new Redactor(secrets).text(shownUrl(resolved.url)) },
      target: { transport: 'http', url: resolved.url, headers: resolved.headers },
      flags: options.flags,
      secrets,
    });
  }
  if (entries.length === 0) {
    entries.push({
      name: base,
      origin: options.origin,
      display: { transport: 'stdio' },
      notRunnable: 'the server.json lists no packages and no remotes',
      flags: options.flags,
      secrets: [],
    });
  }
  return entries;
}

/** Scheme, host and path only: a query may hold a token. */
function safeUrl(url: string): string {
  return describeUrl(url);
}
