/**
 * Which config values are secret, and how they are shown: `***`, always, whatever their content.
 * Secret: `providers[*].api_key`, every value under `mcp_servers.*.env` and `mcp_servers.*.headers`,
 * and any value that `${VAR}` expansion filled from the environment.
 */
import { type ConfigNode, type PathSegment, setOwn } from './tree.js';

export const MASK = '***';

export function isSecretPath(path: readonly PathSegment[]): boolean {
  if (path[0] === 'providers') return path.length === 3 && path[2] === 'api_key';
  if (path[0] === 'mcp_servers') return path.length >= 3 && (path[2] === 'env' || path[2] === 'headers');
  return false;
}

/** Plain data for display: like `toPlain`, with every secret scalar replaced by `***`. */
export function toMaskedPlain(node: ConfigNode, path: readonly PathSegment[] = []): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.fromEnv === true || isSecretPath(path) ? MASK : node.value;
    case 'list':
      return node.items.map((item, i) => toMaskedPlain(item, [...path, i]));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) setOwn(out, e.key, toMaskedPlain(e.value, [...path, e.key]));
      return out;
    }
  }
}
