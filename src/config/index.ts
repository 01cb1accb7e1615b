/**
 * `furfly/config`: the config loader as the package exports it (docs/api.md). It finds the user and
 * project files, merges, expands `${VAR}` and validates, and never throws for a user's mistake: every
 * problem comes back at once, each with its file, line and column.
 */
export { type ConfigError, formatConfigError } from './errors.js';
export type { Env } from './expand.js';
export {
  type ConfigFileStatus,
  type ConfigFiles,
  type LoadOptions,
  type LoadResult,
  loadConfig,
} from './load.js';
export type {
  FurflyConfig,
  HttpServerConfig,
  PermissionMode,
  PermissionsConfig,
  Provider,
  ResolvedConfig,
  ResolvedHttpServer,
  ResolvedServer,
  ResolvedStdioServer,
  StdioServerConfig,
} from './types.js';
