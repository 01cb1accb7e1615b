/**
 * The two steps of starting a session that `furfly permissions check` must repeat exactly: loading the
 * config as the agent does (project trust decides which of the project's parts apply; no config file
 * at all is fine, the defaults apply), and building the permission service from it. One copy, used by
 * the runtime and by the check, so the check can never answer for a policy the agent does not run.
 */
import { formatConfigError } from '../config/errors.js';
import { type LoadResult, loadConfig } from '../config/load.js';
import { userConfigDir } from '../config/paths.js';
import { trustNotices } from '../config/trust-report.js';
import type { ResolvedConfig } from '../config/types.js';
import {
  type CommandContainment,
  type PermissionMode,
  PermissionService,
  type ToolFacts,
} from '../permission/index.js';
import type { Redactor } from '../redaction/index.js';
import { knownSecrets } from './known-secrets.js';

export interface SessionConfigOptions {
  cwd: string;
  configFile?: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** `--trust-project` (true), or the person's answer for this session; absent: the trust store decides. */
  trustProject?: boolean;
}

export type SessionConfig =
  | {
      ok: true;
      config: ResolvedConfig;
      /** The project root the config was found for; the working folder when there is none. */
      projectRoot: string;
      /** From the config loader; empty when no config file was found. */
      secretValues: readonly string[];
      referencedVariables: readonly string[];
      /** The loader's own result (not ok when no config file was found and the defaults apply). */
      loaded: LoadResult;
      /**
       * Lines to show before anything runs: the project config's risky parts that were left out (not
       * trusted), and user credentials held back from an endpoint another layer changed. Each starts
       * with `furfly: `; untrusted text, so print them through the terminal sanitizer.
       */
      notices: readonly string[];
    }
  | { ok: false; message: string };

/** What furfly runs with when there is no config file at all: the documented defaults. */
export const DEFAULT_CONFIG: ResolvedConfig = {
  providers: [],
  max_iterations: 50,
  permissions: { mode: 'strict', rules: [], allow_paths: [] },
  tools: { timeout: 120, max_output_chars: 100_000 },
  sandbox: { allowed_hosts: [], writable: [], read_only: [], unreadable: [] },
  mcp_servers: {},
};

export function loadSessionConfig(options: SessionConfigOptions): SessionConfig {
  const loaded = loadConfig({
    cwd: options.cwd,
    configFile: options.configFile,
    env: options.env,
    homeDir: options.homeDir,
    trustProject: options.trustProject,
  });
  const projectRoot = loaded.files.projectRoot ?? options.cwd;
  if (loaded.ok) {
    return {
      ok: true,
      config: loaded.config,
      projectRoot,
      secretValues: loaded.secretValues,
      referencedVariables: loaded.referencedVariables,
      loaded,
      notices: trustNotices(loaded),
    };
  }
  if (loaded.files.inEffect.length === 0 && loaded.files.project?.explicit !== true) {
    // No config file anywhere is fine for the agent: environment variables and defaults suffice.
    return {
      ok: true,
      config: DEFAULT_CONFIG,
      projectRoot,
      secretValues: [],
      referencedVariables: [],
      loaded,
      notices: [],
    };
  }
  return {
    ok: false,
    message: [
      'furfly: the config has problems:',
      ...loaded.errors.map((e) => `  ${formatConfigError(e)}`),
      // An entry of the user file may be incomplete without the project's parts that were left out.
      ...(loaded.trust === undefined ? [] : trustNotices({ trust: loaded.trust, withheld: [] })),
    ].join('\n'),
  };
}

/**
 * Every secret the session knows (known-secrets.ts): the config's, the environment's secret-named
 * variables and, once chosen, the model provider's key. Tool results, errors and reports pass it.
 */
export function sessionRedactor(
  session: { loaded: LoadResult },
  env: Readonly<Record<string, string | undefined>>,
  providerKey?: string,
): Redactor {
  return knownSecrets({ loaded: session.loaded, env, ...(providerKey === undefined ? {} : { providerKey }) });
}

export interface PermissionServiceOptions {
  projectRoot: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** `--permission-mode` (or `--mode` of the check): overrides the config's mode. */
  mode?: PermissionMode;
  /** Whether commands run in the OS sandbox (the agent's session); absent for `permissions check`. */
  commandContainment?: CommandContainment;
  /** `--retry-outside-sandbox` (-p): see PermissionSettings.retryOutsideSandbox. */
  retryOutsideSandbox?: boolean;
}

export function createPermissionService(
  config: ResolvedConfig,
  options: PermissionServiceOptions,
  facts: ToolFacts,
): PermissionService {
  return new PermissionService(
    {
      mode: options.mode ?? config.permissions.mode,
      rules: config.permissions.rules,
      projectRoot: options.projectRoot,
      allowPaths: config.permissions.allow_paths,
      // The user's own config folder decides permissions for every project: edits there always ask.
      protectedPaths: [userConfigDir(options.env, options.homeDir)],
      ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
      ...(options.commandContainment ? { commandContainment: options.commandContainment } : {}),
      ...(options.retryOutsideSandbox ? { retryOutsideSandbox: true } : {}),
    },
    facts,
  );
}
