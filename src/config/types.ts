/**
 * The config as the rest of furfly sees it: the generated schema types with every documented default filled in,
 * so consumers never repeat a default.
 */
import type {
  FurflyConfig,
  HttpServerConfig,
  OsSandboxConfig,
  PermissionsConfig,
  Provider,
  StdioServerConfig,
  ToolsConfig,
} from '../generated/config/types.js';

export type {
  OAuthClientConfig,
  PermissionAction,
  PermissionMode,
  PermissionRule,
  SandboxKind,
  SandboxLimits,
  ServerSandboxPolicy,
  ToolCategory,
} from '../generated/config/types.js';
export type {
  FurflyConfig,
  HttpServerConfig,
  OsSandboxConfig,
  PermissionsConfig,
  Provider,
  StdioServerConfig,
  ToolsConfig,
};

type WithDefaults<T, K extends keyof T> = T & Required<Pick<T, K>>;

export type ResolvedStdioServer = WithDefaults<
  StdioServerConfig,
  'sandbox' | 'category' | 'timeout' | 'enabled'
>;
export type ResolvedHttpServer = WithDefaults<HttpServerConfig, 'category' | 'timeout' | 'enabled'>;
/**
 * `tool_timeout` is filled in by the loader like every default, but stays optional in the type so that
 * servers built in code (tests, benchmarks) need not name it; absent means the MCP client's default,
 * which is the same 60 s.
 */
export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

export interface ResolvedConfig {
  readonly providers: readonly Provider[];
  readonly max_iterations: number;
  readonly permissions: Required<PermissionsConfig>;
  readonly tools: Required<ToolsConfig>;
  readonly sandbox: Required<OsSandboxConfig>;
  readonly mcp_servers: Readonly<Record<string, ResolvedServer>>;
}
