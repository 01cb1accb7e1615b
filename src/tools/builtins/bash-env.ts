/**
 * The environment a `bash` command sees. Whatever a command can read can end up in the model's
 * transcript (`env`, `printenv`, a script that logs its settings), and in auto mode nobody is asked
 * first. So credentials never reach the child: the caller's environment minus every variable the
 * rule below calls secret, minus any names the creator of the tool adds (the agent passes the
 * variables the config references through `${VAR}`; this layer knows nothing of config).
 */

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Secret by name, compared case-insensitively: the name ends with `API_KEY`, `APIKEY`, `TOKEN`,
 * `PASSWORD` or `PASSWD`, or contains `SECRET` anywhere. This covers ANTHROPIC_API_KEY,
 * ANTHROPIC_AUTH_TOKEN, GITHUB_TOKEN, PGPASSWORD and AWS_SECRET_ACCESS_KEY.
 */
const SECRET_NAME = /(?:API_?KEY|TOKEN|PASSW(?:OR)?D)$|SECRET/i;

/** The rule, in words, for the tool's hard constraints and the docs. */
export const BASH_ENV_RULE =
  'Commands run without secret environment variables: any variable whose name ends with API_KEY, APIKEY, ' +
  'TOKEN, PASSWORD or PASSWD or contains SECRET (case-insensitive; e.g. ANTHROPIC_API_KEY, ' +
  'ANTHROPIC_AUTH_TOKEN), and every variable the furfly config refers to, is removed.';

export function isSecretVariableName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `base` without secret-looking variables and without the names in `drop` (exact, case-sensitive). */
export function childEnvironment(base: Environment, drop: Iterable<string> = []): Record<string, string> {
  const dropped = new Set(drop);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || dropped.has(name) || isSecretVariableName(name)) continue;
    out[name] = value;
  }
  return out;
}
