/**
 * Project trust, as plain data: which parts of a project layer may apply without asking the person, and
 * which wait for their trust.
 *
 * The user layer is the person's own. A project layer (`.furflycode/config.yaml` of a repository, the file
 * named with `--config`, later other project-side sources) comes with the repository, and a cloned
 * repository is somebody else's text. It may make things stricter at once; anything that runs code, sends
 * credentials or loosens permissions is *risky* and applies only once the person trusts it:
 *
 * | project layer writes                                | verdict                                   |
 * |-----------------------------------------------------|-------------------------------------------|
 * | `max_iterations`                                    | safe                                      |
 * | `permissions.mode` as strict as the user's or more  | safe (user's mode, or `strict` when unset)|
 * | `permissions.mode` looser, or not a known mode      | risky                                     |
 * | `permissions.rules` entry with action `deny`/`ask`  | safe                                      |
 * | any other rule (`allow`, malformed)                 | risky                                     |
 * | `permissions.allow_paths`                           | risky                                     |
 * | `sandbox.read_only`, `sandbox.unreadable`           | safe (they only make the sandbox stricter) |
 * | `sandbox.allowed_hosts`, `sandbox.writable`         | risky                                     |
 * | a server the user layer does not define             | risky (stdio runs code, http gets requests)|
 * | `enabled: false` on a server the user defines       | safe (it only turns a server off)         |
 * | any other field of a server the user defines        | risky (it changes where the user's entry goes) |
 * | `providers` (any entry)                             | risky                                     |
 * | anything else                                       | risky: only what is known to be harmless is safe |
 *
 * The split is a whitelist, so a key added to the schema later is risky until someone decides otherwise.
 * The fingerprint covers the risky parts as written (before `${VAR}` expansion, so it never depends on,
 * nor holds, an environment value); the trust store keeps it, and a change of any risky part asks again.
 * Pure: no I/O.
 */
import { createHash } from 'node:crypto';
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

/** Strict to loose, as in permission/modes.ts (config/ does not import permission/; a test keeps them equal). */
export const MODES_STRICT_TO_LOOSE = ['strict', 'accept-edits', 'auto', 'bypass'] as const;

export type RiskKind =
  | 'stdio-server'
  | 'http-server'
  | 'server'
  | 'server-change'
  | 'provider'
  | 'mode'
  | 'allow-rule'
  | 'allow-paths'
  | 'sandbox-opening'
  | 'other';

/** One part of a project layer that waits for trust. */
export interface RiskyPart {
  readonly kind: RiskKind;
  /** Where it sits in the project layer (`['mcp_servers', 'db']`). */
  readonly path: readonly PathSegment[];
  /** Where it was written. */
  readonly origin: Origin;
  /** What it would do, one line each, for a person deciding: commands with arguments, URLs, variables sent. */
  readonly effects: readonly string[];
  /** The value as written, for the fingerprint. */
  readonly written: unknown;
}

/** A file (or other source) that contributes to the project layer, already parsed. */
export interface ProjectSource {
  readonly file: string;
  readonly root: MapNode;
}

export interface ProjectSplit {
  /** What applies without trust. */
  readonly safe: MapNode;
  /** What waits for trust, in file order. */
  readonly risky: readonly RiskyPart[];
}

/** Splits one project-layer tree, judged against the user layer (which servers are the user's, which mode). */
export function splitProjectLayer(user: MapNode, project: MapNode): ProjectSplit {
  const risky: RiskyPart[] = [];
  const safeEntries: MapEntry[] = [];
  const userMode = modeRank(scalarAt(user, ['permissions', 'mode'])) ?? 0;
  const userServers = mapAt(user, ['mcp_servers']);

  for (const e of project.entries) {
    if (e.key === 'max_iterations') {
      safeEntries.push(e);
    } else if (e.key === 'permissions' && e.value.kind === 'map') {
      const safe = splitPermissions(e.value, userMode, risky);
      if (safe.entries.length > 0) safeEntries.push({ ...e, value: safe });
    } else if (e.key === 'mcp_servers' && e.value.kind === 'map') {
      const safe = splitServers(e.value, userServers, risky);
      if (safe.entries.length > 0) safeEntries.push({ ...e, value: safe });
    } else if (e.key === 'sandbox' && e.value.kind === 'map') {
      const safe = splitSandbox(e.value, risky);
      if (safe.entries.length > 0) safeEntries.push({ ...e, value: safe });
    } else if (e.key === 'providers' && e.value.kind === 'list') {
      e.value.items.forEach((item, i) => {
        risky.push(part('provider', ['providers', i], item, providerEffects(item)));
      });
    } else {
      risky.push(part('other', [e.key], e.value, ['a setting whose effect furfly does not judge']));
    }
  }
  return { safe: { ...project, entries: safeEntries }, risky };
}

function splitPermissions(permissions: MapNode, userMode: number, risky: RiskyPart[]): MapNode {
  const entries: MapEntry[] = [];
  for (const e of permissions.entries) {
    const path = ['permissions', e.key];
    if (e.key === 'mode') {
      const rank = modeRank(e.value);
      if (rank !== undefined && rank <= userMode) entries.push(e);
      else {
        const written = e.value.kind === 'scalar' ? String(e.value.value) : '(not a mode)';
        risky.push(
          part('mode', path, e.value, [
            `sets the permission mode to ${visible(written)} (looser than ${MODES_STRICT_TO_LOOSE[userMode]})`,
          ]),
        );
      }
    } else if (e.key === 'rules' && e.value.kind === 'list') {
      const kept: ConfigNode[] = [];
      e.value.items.forEach((rule, i) => {
        const action = rule.kind === 'map' ? scalarAt(rule, ['action']) : undefined;
        const value = action?.kind === 'scalar' ? action.value : undefined;
        if (value === 'deny' || value === 'ask') kept.push(rule);
        else risky.push(part('allow-rule', [...path, i], rule, [`rule: ${describeRule(rule)}`]));
      });
      if (kept.length > 0) entries.push({ ...e, value: { ...e.value, items: kept } });
    } else if (e.key === 'allow_paths') {
      const paths = e.value.kind === 'list' ? e.value.items.map(scalarText) : [scalarText(e.value)];
      risky.push(
        part('allow-paths', path, e.value, [`lets the file tools use without asking: ${paths.join(', ')}`]),
      );
    } else {
      risky.push(part('other', path, e.value, ['a setting whose effect furfly does not judge']));
    }
  }
  return { ...permissions, entries };
}

/** What a project may add to the OS sandbox at once: only what makes it stricter. */
function splitSandbox(sandbox: MapNode, risky: RiskyPart[]): MapNode {
  const entries: MapEntry[] = [];
  for (const e of sandbox.entries) {
    const path = ['sandbox', e.key];
    if (e.key === 'read_only' || e.key === 'unreadable') {
      entries.push(e);
    } else if (e.key === 'allowed_hosts' || e.key === 'writable') {
      const values = e.value.kind === 'list' ? e.value.items.map(scalarText) : [scalarText(e.value)];
      const what = e.key === 'allowed_hosts' ? 'lets commands reach' : 'lets commands write';
      risky.push(part('sandbox-opening', path, e.value, [`${what}: ${values.join(', ')}`]));
    } else {
      risky.push(part('other', path, e.value, ['a setting whose effect furfly does not judge']));
    }
  }
  return { ...sandbox, entries };
}

function splitServers(servers: MapNode, userServers: MapNode | undefined, risky: RiskyPart[]): MapNode {
  const entries: MapEntry[] = [];
  for (const e of servers.entries) {
    const path = ['mcp_servers', e.key];
    const userEntry = userServers === undefined ? undefined : entry(userServers, e.key);
    if (userEntry === undefined) {
      const type = e.value.kind === 'map' ? scalarAt(e.value, ['type']) : undefined;
      const kind =
        type?.value === 'stdio'
          ? 'stdio-server'
          : type?.value === 'http' || type?.value === 'sse'
            ? 'http-server'
            : 'server';
      risky.push(part(kind, path, e.value, serverEffects(e.value)));
      continue;
    }
    // A server the user defined: turning it off is safe; every other change redirects the user's entry.
    if (e.value.kind !== 'map') {
      risky.push(part('server-change', path, e.value, ['replaces your server entry']));
      continue;
    }
    const off = e.value.entries.filter(
      (f) => f.key === 'enabled' && f.value.kind === 'scalar' && f.value.value === false,
    );
    const changes = e.value.entries.filter((f) => !off.includes(f));
    if (off.length > 0) entries.push({ ...e, value: { ...e.value, entries: off } });
    if (changes.length > 0) {
      const changed: MapNode = { ...e.value, entries: changes };
      risky.push(
        part('server-change', path, changed, [
          `changes your server ${visible(e.key)}: ${changes.map((f) => visible(f.key)).join(', ')}`,
          ...serverEffects(changed),
        ]),
      );
    }
  }
  return { ...servers, entries };
}

function serverEffects(server: ConfigNode): string[] {
  if (server.kind !== 'map') return ['a server entry furfly cannot read'];
  const effects: string[] = [];
  const command = scalarAt(server, ['command']);
  const args = entry(server, 'args')?.value;
  if (command !== undefined || args !== undefined) {
    const words = [
      command === undefined ? '(your command)' : scalarText(command),
      ...(args?.kind === 'list' ? args.items.map(scalarText) : args === undefined ? [] : [scalarText(args)]),
    ];
    effects.push(`runs: ${words.join(' ')}`);
  }
  const cwd = scalarAt(server, ['cwd']);
  if (cwd !== undefined) effects.push(`in the folder: ${scalarText(cwd)}`);
  const url = scalarAt(server, ['url']);
  if (url !== undefined) effects.push(`sends requests to: ${scalarText(url)}`);
  for (const field of ['env', 'headers'] as const) {
    const map = entry(server, field)?.value;
    if (map?.kind === 'map' && map.entries.length > 0) {
      effects.push(`${field === 'env' ? 'sets environment' : 'sends headers'}: ${namesAndVariables(map)}`);
    }
  }
  const sandbox = scalarAt(server, ['sandbox']);
  if (sandbox !== undefined && sandbox.value !== 'os' && sandbox.value !== 'docker') {
    effects.push(`runs it without a sandbox (sandbox: ${scalarText(sandbox)})`);
  }
  const policy = entry(server, 'sandbox_policy')?.value;
  if (policy?.kind === 'map') {
    const opens: Record<string, string> = {
      writable: 'lets it write',
      readable_secrets: 'lets it read the credential stores',
      allowed_hosts: 'lets it reach',
    };
    for (const e of policy.entries) {
      const values = e.value.kind === 'list' ? e.value.items.map(scalarText) : [scalarText(e.value)];
      effects.push(`${opens[e.key] ?? `sets sandbox_policy.${visible(e.key)}`}: ${values.join(', ')}`);
    }
  }
  const annotations = scalarAt(server, ['trust_annotations']);
  if (annotations?.value === true) {
    effects.push("lets the server's own tool annotations set its tools' permission category");
  }
  if (scalarAt(server, ['sampling'])?.value === 'allow') {
    effects.push('lets the server use your model without asking (sampling: allow)');
  }
  const oauth = entry(server, 'oauth')?.value;
  if (oauth !== undefined) {
    // Which variables it reads (a client secret may be one) and where it points: the question must say
    // a secret would go to an issuer the file names.
    const fields = oauth.kind === 'map' ? `: ${oauthFields(oauth)}` : '';
    effects.push(`logs in to the server with its own OAuth client settings${fields}`);
  }
  return effects.length > 0 ? effects : ['changes a server entry'];
}

function providerEffects(provider: ConfigNode): string[] {
  if (provider.kind !== 'map') return ['a provider entry furfly cannot read'];
  const name = scalarAt(provider, ['name']);
  const baseUrl = scalarAt(provider, ['base_url']);
  const apiKey = scalarAt(provider, ['api_key']);
  const effects = [`model provider ${name === undefined ? '(no name)' : scalarText(name)}`];
  effects.push(
    `sends your prompts and files to: ${baseUrl === undefined ? 'the default endpoint' : scalarText(baseUrl)}`,
  );
  // Without a base_url, an empty api_key falls back to ANTHROPIC_API_KEY (agent/providers.ts); with one it
  // never does (the environment's key is not sent to an endpoint a file chose).
  const written = apiKey?.kind === 'scalar' && typeof apiKey.value === 'string' ? apiKey.value : undefined;
  const variables = apiKey === undefined ? '' : variablesIn(apiKey);
  const fallback = baseUrl === undefined ? ', or your ANTHROPIC_API_KEY when it is empty' : '';
  if (apiKey === undefined || written?.trim() === '')
    effects.push(
      baseUrl === undefined
        ? 'with your ANTHROPIC_API_KEY from the environment (the api_key is empty)'
        : 'with an empty api_key',
    );
  else if (variables !== '') effects.push(`with the api_key ${variables}${fallback}`);
  else effects.push('with the api_key (written in the file)');
  return effects;
}

/** `Authorization (uses ${GITHUB_TOKEN}), X-Team`: the names, and which variables each value reads; never a value. */
function namesAndVariables(map: MapNode): string {
  return map.entries
    .map((e) => {
      const variables = variablesIn(e.value);
      return variables === '' ? visible(e.key) : `${visible(e.key)} (uses ${variables})`;
    })
    .join(', ');
}

/** `issuer https://as.example, client_id, client_secret (uses ${OAUTH_SECRET})`: addresses shown, secrets never. */
function oauthFields(map: MapNode): string {
  return map.entries
    .map((e) => {
      const variables = variablesIn(e.value);
      if (variables !== '') return `${visible(e.key)} (uses ${variables})`;
      // A key or assertion file is shown too: the question must say which of the person's files it reads.
      const address = e.key === 'issuer' || e.key.endsWith('_url') || e.key.endsWith('_file');
      return address && e.value.kind === 'scalar'
        ? `${visible(e.key)} ${scalarText(e.value)}`
        : visible(e.key);
    })
    .join(', ');
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

function variablesIn(node: ConfigNode): string {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') return '';
  return [...node.value.matchAll(REFERENCE)].map((m) => `\${${m[1]}}`).join(', ');
}

function describeRule(rule: ConfigNode): string {
  if (rule.kind !== 'map') return scalarText(rule);
  const glob = scalarAt(rule, ['tool_glob']);
  const action = scalarAt(rule, ['action']);
  return `${action === undefined ? '(no action)' : scalarText(action)} ${glob === undefined ? '(no tool_glob)' : scalarText(glob)}`;
}

function part(kind: RiskKind, path: readonly PathSegment[], node: ConfigNode, effects: string[]): RiskyPart {
  return { kind, path, origin: primaryOrigin(node), effects, written: toPlain(node) };
}

function modeRank(node: ConfigNode | undefined): number | undefined {
  if (node?.kind !== 'scalar') return undefined;
  const index = (MODES_STRICT_TO_LOOSE as readonly unknown[]).indexOf(node.value);
  return index === -1 ? undefined : index;
}

function scalarAt(map: MapNode, path: readonly string[]): (ConfigNode & { kind: 'scalar' }) | undefined {
  let node: ConfigNode | undefined = map;
  for (const key of path) node = node?.kind === 'map' ? entry(node, key)?.value : undefined;
  return node?.kind === 'scalar' ? node : undefined;
}

function mapAt(map: MapNode, path: readonly string[]): MapNode | undefined {
  let node: ConfigNode | undefined = map;
  for (const key of path) node = node?.kind === 'map' ? entry(node, key)?.value : undefined;
  return node?.kind === 'map' ? node : undefined;
}

/** A written value for display: plain text stays plain, anything else is quoted with its escapes visible. */
function scalarText(node: ConfigNode): string {
  if (node.kind === 'map') return '{…}';
  if (node.kind === 'list') return '[…]';
  return typeof node.value === 'string' ? visible(node.value) : String(node.value);
}

/**
 * Text from the project file, made safe for a terminal: words of ordinary printable characters as they
 * are, anything else quoted, with control characters, C1 controls and bidirectional overrides shown as
 * escapes, so a file cannot disguise what it would run.
 */
export function visible(text: string): string {
  if (/^[\x21-\x7e]+$/.test(text) && !/["\\]/.test(text)) return text;
  return escapeInvisible(JSON.stringify(text));
}

const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** Every control, C1 and bidirectional character as a visible escape (`\x1b`, `\u202e`). */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The fingerprint the trust store keeps: a hash of every source's file name and risky parts as written.
 * Equal exactly when the risky parts are the same text in the same files.
 */
export function trustFingerprint(sources: readonly { file: string; risky: readonly RiskyPart[] }[]): string {
  const canonical = sources.map((s) => ({
    file: s.file,
    parts: s.risky.map((p) => ({ path: p.path, value: sortedKeys(p.written) })),
  }));
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical)).digest('hex')}`;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object') {
    const out: [string, unknown][] = Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]);
    return out;
  }
  return value;
}

/** `mcp_servers.db (file:3:3)`: the part's key path and where it was written. */
export function describePartPlace(p: RiskyPart): string {
  return `${escapeInvisible(displayPath(p.path))} (${escapeInvisible(formatOrigin(p.origin))})`;
}
