/**
 * Every secret value furfly knows in a session, as one redactor: the config's (provider API keys,
 * env and header values with their tokens, URL credentials and query values, every `${VAR}` value:
 * see config/secrets.ts), the model provider's key wherever it came from (`ANTHROPIC_API_KEY`), and
 * the value of every environment variable whose name says it is secret (`GITHUB_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`: the rule bash uses to keep them out of commands). The agent passes every
 * tool result through it; `furfly mcp` passes what it prints.
 */
import type { LoadResult } from '../config/load.js';
import { userConfigDir } from '../config/paths.js';
import { configSecrets } from '../config/secrets.js';
import { TokenStore } from '../mcp/auth/token-store.js';
import { Redactor } from '../redaction/index.js';
import { isSecretVariable } from '../tools/builtins/bash-env.js';

export interface KnownSecretsSources {
  /** The loaded config, when there is one (a failed or absent config adds nothing). */
  loaded?: LoadResult;
  env: Readonly<Record<string, string | undefined>>;
  /** The provider's API key as chosen (config or environment). */
  providerKey?: string;
}

export function knownSecrets({ loaded, env, providerKey }: KnownSecretsSources): Redactor {
  const secrets: string[] = [];
  if (loaded?.ok) secrets.push(...configSecrets(loaded.config, { ...loaded, env }));
  if (providerKey !== undefined) secrets.push(providerKey);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretVariable(name, value)) secrets.push(value);
  }
  // The OAuth tokens and client secrets furfly stored for remote servers (docs/remote-servers.md).
  secrets.push(...new TokenStore(userConfigDir(env)).secrets());
  return new Redactor(secrets);
}
