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
 * `PASSWORD`, `PASSWD`, `_KEY` (`OPENAI_KEY`, `SSH_PRIVATE_KEY`), `_PAT` (`GH_PAT`), `_AUTH`
 * (`NPM_AUTH`, not `SSH_AUTH_SOCK`) or `_DSN`, or contains `SECRET`, `PRIVATE_KEY` or
 * `CONNECTION_STRING` anywhere. This covers ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, GITHUB_TOKEN,
 * PGPASSWORD and AWS_SECRET_ACCESS_KEY.
 */
const SECRET_NAME =
  /(?:API_?KEY|TOKEN|PASSW(?:OR)?D|(?:^|_)KEY|(?:^|_)PAT|_AUTH|(?:^|_)DSN)$|SECRET|PRIVATE_?KEY|CONNECTION_?STRING/i;

/**
 * Secret by value, whatever the name: a URL with a password in it (`DATABASE_URL=postgres://u:pw@h`)
 * or a PEM private key.
 */
const SECRET_VALUE = /^[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:[^/\s@]+@|-----BEGIN [A-Z ]*PRIVATE KEY-----/i;

/** The rule, in words, for the tool's hard constraints and the docs. */
export const BASH_ENV_RULE =
  'Commands run without secret environment variables: any variable whose name ends with API_KEY, APIKEY, ' +
  'TOKEN, PASSWORD, PASSWD, _KEY, _PAT, _AUTH or _DSN or contains SECRET, PRIVATE_KEY or CONNECTION_STRING ' +
  '(case-insensitive; e.g. ANTHROPIC_API_KEY, GH_PAT), any whose value is a URL with a password or a private ' +
  'key, and every variable the furfly config refers to, is removed.';

export function isSecretVariableName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Whether the variable is secret by its name or by what its value looks like. */
export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value);
}

/** `base` without secret-looking variables and without the names in `drop` (exact, case-sensitive). */
export function childEnvironment(base: Environment, drop: Iterable<string> = []): Record<string, string> {
  const dropped = new Set(drop);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || dropped.has(name) || isSecretVariable(name, value)) continue;
    out[name] = value;
  }
  return out;
}
