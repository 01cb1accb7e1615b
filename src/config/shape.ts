/**
 * What the schema says about each kind of object, in the form the error messages and the defaults need:
 * known keys (for "did you mean"), required keys, and the documented defaults.
 * `shape.test.ts` checks every entry against `schemas/config.schema.json`, so the two cannot drift;
 * keeping a copy here means runtime code never reads or compiles the schema.
 */
import type { PathSegment } from './tree.js';

export type ObjectKind =
  | 'root'
  | 'provider'
  | 'permissions'
  | 'tools'
  | 'sandbox'
  | 'rule'
  | 'stdio'
  | 'http'
  | 'sandboxLimits'
  | 'serverSandboxPolicy';

export interface ObjectShape {
  /** In schema order. */
  readonly keys: readonly string[];
  readonly required: readonly string[];
  readonly defaults: Readonly<Record<string, unknown>>;
}

export const SHAPES: Readonly<Record<ObjectKind, ObjectShape>> = {
  root: {
    keys: ['providers', 'max_iterations', 'permissions', 'tools', 'sandbox', 'mcp_servers'],
    required: [],
    defaults: { providers: [], max_iterations: 50, permissions: {}, tools: {}, sandbox: {}, mcp_servers: {} },
  },
  provider: {
    keys: ['name', 'protocol', 'api_key', 'model', 'base_url'],
    required: ['name', 'protocol', 'api_key', 'model'],
    defaults: {},
  },
  permissions: {
    keys: ['mode', 'rules', 'allow_paths'],
    required: [],
    defaults: { mode: 'strict', rules: [], allow_paths: [] },
  },
  tools: {
    keys: ['timeout', 'max_output_chars'],
    required: [],
    defaults: { timeout: 120, max_output_chars: 100_000 },
  },
  sandbox: {
    keys: ['allowed_hosts', 'writable', 'read_only', 'unreadable'],
    required: [],
    defaults: { allowed_hosts: [], writable: [], read_only: [], unreadable: [] },
  },
  rule: { keys: ['tool_glob', 'action'], required: ['tool_glob', 'action'], defaults: {} },
  stdio: {
    keys: [
      'type',
      'command',
      'args',
      'env',
      'cwd',
      'sandbox',
      'sandbox_limits',
      'sandbox_policy',
      'category',
      'timeout',
      'tool_timeout',
      'protocol_version',
      'probe_timeout_ms',
      'enabled',
      'sampling',
      'trust_annotations',
      'log_level',
    ],
    required: ['type', 'command'],
    defaults: { sandbox: 'none', category: 'execute', timeout: 10, tool_timeout: 60, enabled: true },
  },
  http: {
    keys: [
      'type',
      'url',
      'headers',
      'oauth',
      'category',
      'timeout',
      'tool_timeout',
      'protocol_version',
      'probe_timeout_ms',
      'enabled',
      'sampling',
      'trust_annotations',
      'log_level',
    ],
    required: ['type', 'url'],
    defaults: { category: 'execute', timeout: 10, tool_timeout: 60, enabled: true },
  },
  // No defaults here on purpose: a limit left out is filled in by src/sandbox/policy.ts, the one owner
  // of the numbers, so `config show` prints only the limits someone wrote.
  sandboxLimits: { keys: ['memory_mb', 'cpus', 'pids'], required: [], defaults: {} },
  // No defaults either: an absent list is empty (src/sandbox/os-policy.ts `serverPolicy`).
  serverSandboxPolicy: {
    keys: ['writable', 'readable_secrets', 'allowed_hosts'],
    required: [],
    defaults: {},
  },
};

export const SERVER_TYPES = ['stdio', 'http', 'sse'] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

export function isServerType(value: unknown): value is ServerType {
  return value === 'stdio' || value === 'http' || value === 'sse';
}

/** The schema object a server type's entry is: `sse` entries have the same keys as `http` ones. */
export function shapeOfServerType(type: ServerType): 'stdio' | 'http' {
  return type === 'stdio' ? 'stdio' : 'http';
}

/**
 * The kind of object found at `path`, if it is one of the schema's objects.
 * `serverType` is the `type` written in the server entry, for paths `mcp_servers.<name>`.
 */
export function objectKindAt(path: readonly PathSegment[], serverType?: unknown): ObjectKind | undefined {
  if (path.length === 0) return 'root';
  if (path.length === 1 && path[0] === 'permissions') return 'permissions';
  if (path.length === 1 && path[0] === 'tools') return 'tools';
  if (path.length === 1 && path[0] === 'sandbox') return 'sandbox';
  if (path.length === 2 && path[0] === 'providers') return 'provider';
  if (path.length === 3 && path[0] === 'permissions' && path[1] === 'rules') return 'rule';
  if (path.length === 2 && path[0] === 'mcp_servers' && isServerType(serverType))
    return shapeOfServerType(serverType);
  if (path.length === 3 && path[0] === 'mcp_servers' && path[2] === 'sandbox_limits') return 'sandboxLimits';
  if (path.length === 3 && path[0] === 'mcp_servers' && path[2] === 'sandbox_policy')
    return 'serverSandboxPolicy';
  return undefined;
}
