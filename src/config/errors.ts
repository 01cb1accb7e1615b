/**
 * A user-facing config problem. Messages never contain configured or environment values,
 * only key paths, variable names, types and what was expected.
 */
import { formatOrigin, type Origin } from './origin.js';

export interface ConfigError {
  /** Where the offending value (or key) was written; absent for problems without a position (no file found). */
  readonly origin?: Origin;
  /** Dotted key path, e.g. `mcp_servers.github.env.TOKEN`; absent for whole-file problems. */
  readonly path?: string;
  readonly message: string;
}

/** `file:line:col: path: message`, the one format every config error is printed in. */
export function formatConfigError(error: ConfigError): string {
  const parts: string[] = [];
  if (error.origin !== undefined) parts.push(formatOrigin(error.origin));
  if (error.path !== undefined) parts.push(error.path);
  parts.push(error.message);
  return parts.join(': ');
}
