/**
 * `${VAR}` expansion in the fields that may hold secrets or machine-specific values:
 * `mcp_servers.*.{command,args,env,headers,url}`,
 * `mcp_servers.*.oauth.{client_id,client_secret,private_key_file,assertion_file,idp_client_id,
 *   idp_client_secret,id_token_file}` and
 * `providers[*].{api_key,base_url}`.
 *
 * - `${VAR}` is the variable's value; an unset variable is an error (all of them are reported at once).
 * - `${VAR:-default}` uses `default` when VAR is unset or empty.
 * - `$$` is a literal `$`; a `$` not followed by `{` or `$` is kept as it is.
 * Servers with `enabled: false` are left alone: a disabled server must not demand its token, and its
 * unexpanded values are not held to their patterns (see `unexpandedPaths`).
 * Pure: the environment is passed in.
 */
import type { ConfigError } from './errors.js';
import { type ConfigNode, displayPath, type MapNode, type PathSegment, walk } from './tree.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ExpandResult {
  readonly root: MapNode;
  readonly errors: readonly ConfigError[];
  /** Display paths of the values left unexpanded because of an error. */
  readonly failedPaths: ReadonlySet<string>;
  /**
   * Every value a `${VAR}` reference took from the environment, wherever it was used (a token in a URL,
   * an argument, a header). Whoever prints a message about a server redacts them.
   */
  readonly secretValues: ReadonlySet<string>;
  /**
   * Display paths of the values of disabled servers that hold a `${...}` reference and were left as
   * written: checking `${URL}` against the URL pattern would fail a server that is never started.
   */
  readonly unexpandedPaths: ReadonlySet<string>;
}

const SERVER_FIELDS = new Set(['command', 'args', 'env', 'headers', 'url']);
const PROVIDER_FIELDS = new Set(['api_key', 'base_url']);
const OAUTH_FIELDS = new Set([
  'client_id',
  'client_secret',
  'private_key_file',
  'assertion_file',
  'idp_client_id',
  'idp_client_secret',
  'id_token_file',
]);

/** Does `${VAR}` expansion apply at this path (or anywhere below it)? */
export function isExpandedPath(path: readonly PathSegment[]): boolean {
  const [top, , field] = path;
  if (top === 'mcp_servers' && path.length >= 3) {
    // OAuth client credentials (docs/remote-servers.md): the secret is usually a ${VAR}.
    if (field === 'oauth') return path.length === 3 || OAUTH_FIELDS.has(String(path[3]));
    return SERVER_FIELDS.has(String(field));
  }
  if (top === 'providers' && path.length >= 3) return PROVIDER_FIELDS.has(String(field));
  return false;
}

export function expandConfig(root: MapNode, env: Env): ExpandResult {
  const errors: ConfigError[] = [];
  const failedPaths = new Set<string>();
  const secretValues = new Set<string>();
  const unexpandedPaths = new Set<string>();
  const visit = (node: ConfigNode, path: readonly PathSegment[]): ConfigNode => {
    if (node.kind === 'map') {
      if (path.length === 2 && path[0] === 'mcp_servers' && isDisabled(node)) {
        walk(node, (inner, innerPath) => {
          const full = [...path, ...innerPath];
          if (inner.kind === 'scalar' && typeof inner.value === 'string' && isExpandedPath(full)) {
            if (inner.value.includes('${')) unexpandedPaths.add(displayPath(full));
          }
        });
        return node;
      }
      return {
        ...node,
        entries: node.entries.map((e) => ({ ...e, value: visit(e.value, [...path, e.key]) })),
      };
    }
    if (node.kind === 'list')
      return { ...node, items: node.items.map((item, i) => visit(item, [...path, i])) };
    if (typeof node.value !== 'string' || !isExpandedPath(path)) return node;
    const used: string[] = [];
    const result = expandString(node.value, env, (value) => used.push(value));
    if (result.malformed || result.undefinedVariables.length > 0) failedPaths.add(displayPath(path));
    if (result.malformed) {
      errors.push({
        origin: node.origin,
        message: `${displayPath(path)} has a malformed variable reference (write \${NAME} or \${NAME:-default}, and $$ for a literal $)`,
      });
      return node;
    }
    for (const name of result.undefinedVariables) {
      errors.push({
        origin: node.origin,
        message: `${displayPath(path)} references undefined variable \${${name}}`,
      });
    }
    if (result.undefinedVariables.length > 0) return node;
    for (const value of used) if (value !== '') secretValues.add(value);
    return result.fromEnv
      ? { ...node, value: result.value, fromEnv: true }
      : { ...node, value: result.value };
  };
  const expanded = visit(root, []) as MapNode;
  return { root: expanded, errors, failedPaths, secretValues, unexpandedPaths };
}

function isDisabled(server: MapNode): boolean {
  const enabled = server.entries.find((e) => e.key === 'enabled')?.value;
  return enabled?.kind === 'scalar' && enabled.value === false;
}

export interface ExpandedString {
  readonly value: string;
  /** Some of `value` came from the environment. */
  readonly fromEnv: boolean;
  /** Unset variables referenced without a default, in order, without repeats. */
  readonly undefinedVariables: readonly string[];
  /** A `${` without a matching `}` or with an invalid name. */
  readonly malformed: boolean;
}

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** `onEnvValue` hears every value taken from the environment (not defaults). */
export function expandString(text: string, env: Env, onEnvValue?: (value: string) => void): ExpandedString {
  let value = '';
  let fromEnv = false;
  const undefinedVariables: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch !== '$' || i + 1 >= text.length) {
      value += ch;
      i += 1;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      value += '$';
      i += 2;
      continue;
    }
    if (next !== '{') {
      value += '$';
      i += 1;
      continue;
    }
    const close = text.indexOf('}', i + 2);
    const match = close === -1 ? null : REFERENCE.exec(text.slice(i + 2, close));
    if (match === null) return { value: text, fromEnv: false, undefinedVariables: [], malformed: true };
    const name = match[1]!;
    const fallback = match[2];
    const fromEnvironment = env[name];
    if (fallback !== undefined) {
      if (fromEnvironment !== undefined && fromEnvironment !== '') {
        value += fromEnvironment;
        fromEnv = true;
        onEnvValue?.(fromEnvironment);
      } else {
        value += fallback;
      }
    } else if (fromEnvironment !== undefined) {
      value += fromEnvironment;
      fromEnv = true;
      onEnvValue?.(fromEnvironment);
    } else if (!undefinedVariables.includes(name)) {
      undefinedVariables.push(name);
    }
    i = close + 1;
  }
  return { value, fromEnv, undefinedVariables, malformed: false };
}
