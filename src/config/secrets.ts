/**
 * Which config values are secret, and how they are shown.
 *
 * Secret as a whole (`***`, always, whatever their content): `providers[*].api_key`, every value under
 * `mcp_servers.*.env` and `mcp_servers.*.headers`, and any value that `${VAR}` expansion filled from
 * the environment. Secret in part: the credentials and query values of URLs (shown as
 * `https://user:***@host/path?token=***`) and the tokens of header values (see redaction/secret-parts.ts).
 *
 * `configSecrets` lists every secret value of a loaded config, for the redactor that keeps them out of
 * tool results, messages and reports.
 */
import { headerSecrets, MASK, maskUrl, Redactor, urlSecrets } from '../redaction/index.js';
import type { Env } from './expand.js';
import { type ConfigNode, type PathSegment, setOwn } from './tree.js';
import type { ResolvedConfig, ResolvedServer } from './types.js';

export { MASK };

export function isSecretPath(path: readonly PathSegment[]): boolean {
  if (path[0] === 'providers') return path.length === 3 && path[2] === 'api_key';
  if (path[0] === 'mcp_servers') {
    if (path.length === 4 && path[2] === 'oauth' && path[3] === 'client_secret') return true;
    return path.length >= 3 && (path[2] === 'env' || path[2] === 'headers');
  }
  return false;
}

/**
 * A scalar as `config show` prints it: `***` for a secret, URLs with their credentials and query values
 * masked, and any other known secret inside a string (a header's token pasted into an argument) masked.
 */
export function displayScalar(
  node: ConfigNode & { kind: 'scalar' },
  path: readonly PathSegment[],
  redactor: Redactor = Redactor.none,
): string | number | boolean | null {
  if (node.fromEnv === true || isSecretPath(path)) return MASK;
  return typeof node.value === 'string' ? redactor.text(maskUrl(node.value)) : node.value;
}

/** Plain data for display: like `toPlain`, with every secret masked as `displayScalar` does. */
export function toMaskedPlain(
  node: ConfigNode,
  path: readonly PathSegment[] = [],
  redactor: Redactor = Redactor.none,
): unknown {
  switch (node.kind) {
    case 'scalar':
      return displayScalar(node, path, redactor);
    case 'list':
      return node.items.map((item, i) => toMaskedPlain(item, [...path, i], redactor));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) setOwn(out, e.key, toMaskedPlain(e.value, [...path, e.key], redactor));
      return out;
    }
  }
}

/**
 * The secret values of one server entry: env values, header values and their tokens, and the
 * credentials and query values of its URL (and of URLs among its arguments).
 */
export function serverSecrets(server: ResolvedServer): string[] {
  if (server.type !== 'stdio') {
    const oauthSecret = server.oauth?.client_secret;
    return [
      ...headerSecrets(server.headers),
      ...urlSecrets(server.url),
      ...(oauthSecret === undefined ? [] : [oauthSecret]),
    ];
  }
  return [...Object.values(server.env ?? {}), ...(server.args ?? []).flatMap(urlSecrets)];
}

/**
 * Environment variables that hold where and who, not credentials: a `${HOME}` in a command makes the
 * home folder no secret (masking it would garble every path in every output).
 */
const NOT_SECRET_VARIABLES = new Set([
  'HOME',
  'USER',
  'LOGNAME',
  'PWD',
  'OLDPWD',
  'TMPDIR',
  'TMP',
  'TEMP',
  'SHELL',
  'PATH',
  'LANG',
  'TERM',
  'HOSTNAME',
]);

export interface ConfigSecretSources {
  /** The loader's `secretValues`: every value a `${VAR}` reference filled in. */
  readonly secretValues: readonly string[];
  /** The loader's `referencedVariables` and the environment, to tell `${HOME}` from `${TOKEN}`. */
  readonly referencedVariables?: readonly string[];
  readonly env?: Env;
}

/**
 * Every secret value of a loaded config: provider API keys and the credentials of `base_url`, each
 * server's `serverSecrets`, and every value `${VAR}` expansion filled in (except the values of the
 * variables in NOT_SECRET_VARIABLES). Unfiltered: the redactor drops values too short to mask.
 */
export function configSecrets(config: ResolvedConfig, sources: ConfigSecretSources): string[] {
  const secrets: string[] = [];
  for (const provider of config.providers) {
    if (provider.api_key) secrets.push(provider.api_key);
    if (provider.base_url) secrets.push(...urlSecrets(provider.base_url));
  }
  for (const server of Object.values(config.mcp_servers)) secrets.push(...serverSecrets(server));
  const harmless = new Set(
    (sources.referencedVariables ?? [])
      .filter((name) => NOT_SECRET_VARIABLES.has(name))
      .map((name) => sources.env?.[name]),
  );
  const placed = new Set(secrets);
  for (const value of sources.secretValues)
    if (placed.has(value) || !harmless.has(value)) secrets.push(value);
  return secrets;
}
