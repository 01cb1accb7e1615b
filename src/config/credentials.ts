/**
 * Credentials stay with their endpoint. A user-layer server's `env`, `headers` and `oauth` client, and a user-layer
 * provider's `api_key`, were written for the endpoint written next to them. When another layer changes that
 * endpoint (a server's `type`, `command`, `args`, `cwd` or `url`; a provider's `protocol` or `base_url`)
 * to something else, those secrets are not sent there, whether that layer is trusted or not:
 *
 * - a server keeps running, without the user layer's env and header entries (the other layer's own entries
 *   stay: it wrote them for its own endpoint), and without the user layer's `args` when they read a
 *   `${VAR}` and the other layer changed the command; every command that loads the config names the entry;
 * - a provider cannot run without a key, so it becomes a config error naming the entry: the person either
 *   writes an `api_key` next to the new `base_url` or removes the change.
 *
 * Works on the merged tree, before expansion (the withheld values are never expanded). Pure.
 */
import type { ConfigError } from './errors.js';
import { formatOrigin, type Origin } from './origin.js';
import {
  type ConfigNode,
  displayPath,
  entry,
  type MapEntry,
  type MapNode,
  type PathSegment,
  primaryOrigin,
  toPlain,
} from './tree.js';

const SERVER_ENDPOINT = ['type', 'command', 'args', 'cwd', 'url'] as const;
const SERVER_SECRETS = ['env', 'headers', 'oauth'] as const;
/**
 * The user's client credentials in `oauth`: a secret, a private key, a workload's assertion, and for
 * enterprise-managed authorization the identity provider's client secret and the user's ID token.
 */
const OAUTH_SECRETS = [
  'client_secret',
  'private_key_file',
  'assertion_file',
  'idp_client_secret',
  'id_token_file',
] as const;
/** What an `oauth` client secret is bound to (see withoutUserClientSecret). */
const OAUTH_ENDPOINT = ['issuer', 'client_id', 'client_metadata_url', 'idp_issuer', 'idp_client_id'] as const;
const PROVIDER_ENDPOINT = ['protocol', 'base_url'] as const;

export interface WithheldCredentials {
  /** The merged entry: `['mcp_servers', 'github']` or `['providers', 0]`. */
  readonly entry: readonly PathSegment[];
  /** The user-layer secrets left out, relative to the entry: `headers.Authorization`, `api_key`. */
  readonly secrets: readonly string[];
  /** The endpoint fields another layer changed. */
  readonly changed: readonly string[];
  /** Where the first changed field was written. */
  readonly changedAt: Origin;
}

export interface CredentialCheck {
  readonly root: MapNode;
  readonly withheld: readonly WithheldCredentials[];
  /** Providers left without a key (see above), one error each. */
  readonly errors: readonly ConfigError[];
}

export function keepCredentialsWithEndpoint(user: MapNode, other: MapNode, merged: MapNode): CredentialCheck {
  const withheld: WithheldCredentials[] = [];
  const errors: ConfigError[] = [];
  const root = mapEntries(merged, (top) => {
    if (top.key === 'mcp_servers' && top.value.kind === 'map') {
      const userServers = childMap(user, 'mcp_servers');
      const otherServers = childMap(other, 'mcp_servers');
      return {
        ...top,
        value: mapEntries(top.value, (server) => {
          const mine = userServers && childMap(userServers, server.key);
          const theirs = otherServers && childMap(otherServers, server.key);
          if (mine === undefined || theirs === undefined || server.value.kind !== 'map') return server;
          const changed = changedFields(mine, theirs, SERVER_ENDPOINT);
          if (changed.length === 0) return withoutUserClientSecret(server, mine, theirs, withheld);
          const result = withoutUserSecrets(server.value, mine, theirs);
          if (result.secrets.length === 0) return server;
          withheld.push({
            entry: ['mcp_servers', server.key],
            secrets: result.secrets,
            changed,
            changedAt: primaryOrigin(entry(theirs, changed[0]!)!.value),
          });
          return { ...server, value: result.map };
        }),
      };
    }
    if (top.key === 'providers' && top.value.kind === 'list') {
      const userProviders = entry(user, 'providers')?.value;
      const otherProviders = entry(other, 'providers')?.value;
      const items = top.value.items.map((item, index) => {
        const name = item.kind === 'map' ? scalar(item, 'name') : undefined;
        const mine = byName(userProviders, name);
        const theirs = byName(otherProviders, name);
        if (mine === undefined || theirs === undefined || item.kind !== 'map') return item;
        const changed = changedFields(mine, theirs, PROVIDER_ENDPOINT);
        if (changed.length === 0 || entry(theirs, 'api_key') !== undefined) return item;
        if (entry(mine, 'api_key') === undefined) return item;
        const changedAt = primaryOrigin(entry(theirs, changed[0]!)!.value);
        withheld.push({ entry: ['providers', index], secrets: ['api_key'], changed, changedAt });
        errors.push({
          origin: changedAt,
          path: displayPath(['providers', index, changed[0]!]),
          message:
            `changes the endpoint of the provider ${JSON.stringify(name)}, whose api_key comes from ` +
            `${formatOrigin(primaryOrigin(entry(mine, 'api_key')!.value))}; furfly does not send a key to an ` +
            'endpoint another file chose: write an api_key next to this change, or remove the change',
        });
        return { ...item, entries: item.entries.filter((e) => e.key !== 'api_key') };
      });
      return { ...top, value: { ...top.value, items } };
    }
    return top;
  });
  return { root, withheld, errors };
}

/**
 * The user's `oauth.client_secret` is sent to the authorization server its `oauth.issuer` names, as the
 * client its `oauth.client_id` names: those are the secret's endpoint. The same holds for the key that
 * `oauth.private_key_file` names (it signs assertions for that client) and a workload's `assertion_file`.
 * When another layer changes the endpoint (or the client metadata document) and gives none of these of
 * its own, the user's are held back; the rest of the server entry stands.
 */
function withoutUserClientSecret(
  server: MapEntry,
  mine: MapNode,
  theirs: MapNode,
  withheld: WithheldCredentials[],
): MapEntry {
  const myOauth = childMap(mine, 'oauth');
  const theirOauth = childMap(theirs, 'oauth');
  if (myOauth === undefined || theirOauth === undefined || server.value.kind !== 'map') return server;
  if (OAUTH_SECRETS.some((field) => entry(theirOauth, field) !== undefined)) return server;
  const mySecrets = OAUTH_SECRETS.filter((field) => entry(myOauth, field) !== undefined);
  if (mySecrets.length === 0) return server;
  const changed = changedFields(myOauth, theirOauth, OAUTH_ENDPOINT);
  if (changed.length === 0) return server;
  withheld.push({
    entry: ['mcp_servers', server.key],
    secrets: mySecrets.map((field) => `oauth.${field}`),
    changed: changed.map((field) => `oauth.${field}`),
    changedAt: primaryOrigin(entry(theirOauth, changed[0]!)!.value),
  });
  const held = new Set<string>(mySecrets);
  const value = mapEntries(server.value, (field) =>
    field.key === 'oauth' && field.value.kind === 'map'
      ? {
          ...field,
          value: { ...field.value, entries: field.value.entries.filter((e) => !held.has(e.key)) },
        }
      : field,
  );
  return { ...server, value };
}

/** The endpoint fields `theirs` writes with a value different from `mine`'s (or that `mine` leaves out). */
function changedFields(mine: MapNode, theirs: MapNode, fields: readonly string[]): string[] {
  return fields.filter((field) => {
    const t = entry(theirs, field);
    if (t === undefined) return false;
    const m = entry(mine, field);
    return m === undefined || JSON.stringify(toPlain(m.value)) !== JSON.stringify(toPlain(t.value));
  });
}

function withoutUserSecrets(
  merged: MapNode,
  mine: MapNode,
  theirs: MapNode,
): { map: MapNode; secrets: string[] } {
  const secrets: string[] = [];
  // The user's `args` kept under another layer's `command` may carry a `${VAR}` (a token on the command line).
  const userArgs = entry(theirs, 'args') === undefined ? entry(mine, 'args')?.value : undefined;
  const argsHoldVariables =
    userArgs?.kind === 'list' &&
    userArgs.items.some((a) => a.kind === 'scalar' && typeof a.value === 'string' && a.value.includes('${'));
  const kept = argsHoldVariables
    ? { ...merged, entries: merged.entries.filter((e) => e.key !== 'args') }
    : merged;
  if (argsHoldVariables) secrets.push('args');
  const map = mapEntries(kept, (field) => {
    if (!(SERVER_SECRETS as readonly string[]).includes(field.key) || field.value.kind !== 'map')
      return field;
    const userKeys = new Set(childMap(mine, field.key)?.entries.map((e) => e.key) ?? []);
    const theirKeys = new Set(childMap(theirs, field.key)?.entries.map((e) => e.key) ?? []);
    const kept = field.value.entries.filter((e) => {
      const fromUser = userKeys.has(e.key) && !theirKeys.has(e.key);
      if (fromUser) secrets.push(displayPath([field.key, e.key]));
      return !fromUser;
    });
    return { ...field, value: { ...field.value, entries: kept } };
  });
  // An `oauth` left without its client (the user's was held back) is no client at all: it goes whole.
  const withoutBareOauth = {
    ...map,
    entries: map.entries.filter(
      (e) =>
        e.key !== 'oauth' ||
        e.value.kind !== 'map' ||
        e.value.entries.some((x) => x.key === 'client_id' || x.key === 'client_metadata_url'),
    ),
  };
  return { map: withoutBareOauth, secrets };
}

function byName(list: ConfigNode | undefined, name: unknown): MapNode | undefined {
  if (list?.kind !== 'list' || typeof name !== 'string') return undefined;
  const found = list.items.find((item) => item.kind === 'map' && scalar(item, 'name') === name);
  return found?.kind === 'map' ? found : undefined;
}

function childMap(map: MapNode, key: string): MapNode | undefined {
  const value = entry(map, key)?.value;
  return value?.kind === 'map' ? value : undefined;
}

function scalar(map: MapNode, key: string): unknown {
  const value = entry(map, key)?.value;
  return value?.kind === 'scalar' ? value.value : undefined;
}

function mapEntries(map: MapNode, f: (e: MapEntry) => MapEntry): MapNode {
  return { ...map, entries: map.entries.map(f) };
}
