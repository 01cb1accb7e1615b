/**
 * The config as the rest of furfly sees it: the generated schema types with every documented default filled in,
 * so consumers never repeat a default.
 */
import type {
  FurflyConfig,
  HttpServerConfig,
  PermissionsConfig,
  Provider,
  StdioServerConfig,
} from '../generated/config/types.js';

export type {
  PermissionAction,
  PermissionMode,
  PermissionRule,
  SandboxKind,
  SandboxLimits,
  ToolCategory,
} from '../generated/config/types.js';
export type { FurflyConfig, HttpServerConfig, PermissionsConfig, Provider, StdioServerConfig };

type WithDefaults<T, K extends keyof T> = T & Required<Pick<T, K>>;

export type ResolvedStdioServer = WithDefaults<
  StdioServerConfig,
  'sandbox' | 'category' | 'timeout' | 'enabled'
>;
export type ResolvedHttpServer = WithDefaults<HttpServerConfig, 'category' | 'timeout' | 'enabled'>;
export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

export interface ResolvedConfig {
  readonly providers: readonly Provider[];
  readonly max_iterations: number;
  readonly permissions: Required<PermissionsConfig>;
  readonly mcp_servers: Readonly<Record<string, ResolvedServer>>;
}
