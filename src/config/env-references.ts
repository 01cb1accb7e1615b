/**
 * Secrets typed on the command line (`furfly mcp add -e TOKEN=… --header 'Authorization: Bearer …'`) or
 * imported from another client's file should not end up in a config file as plain text. When such a value
 * is exactly the value of an environment variable (the person typed `-e TOKEN=$GITHUB_TOKEN` and the
 * shell filled it in), the file gets the reference `${GITHUB_TOKEN}` instead. Header values are also
 * looked at word by word, so `Bearer $TOKEN` becomes `Bearer ${TOKEN}`.
 */
import { isMaskable } from '../redaction/index.js';
import type { Env } from './expand.js';

/** Variables whose values are places and names, not secrets: a path equal to $HOME stays a path. */
const NOT_SECRET_VARIABLES = new Set([
  'HOME',
  'PWD',
  'OLDPWD',
  'PATH',
  'SHELL',
  'USER',
  'LOGNAME',
  'TERM',
  'LANG',
  'TMPDIR',
  '_',
]);

export interface Referenced {
  /** The value to write: references where the environment held the text, else the value as given. */
  readonly value: string;
  /** The variables now referenced. */
  readonly variables: readonly string[];
  /** Some of the value is a maskable literal (a possible secret written as plain text). */
  readonly literalSecret: boolean;
}

/** `preferred`: the variable to choose when several hold the same value (the env entry's own name). */
export function withEnvReferences(value: string, env: Env, preferred?: string): Referenced {
  if (value.includes('${')) return { value, variables: [], literalSecret: false };
  const whole = variableHolding(value, env, preferred);
  if (whole !== undefined) return { value: `\${${whole}}`, variables: [whole], literalSecret: false };
  const variables: string[] = [];
  let literalSecret = false;
  const words = value.split(/(\s+)/).map((word) => {
    if (/^\s*$/.test(word)) return word;
    const name = variableHolding(word, env, preferred);
    if (name === undefined) {
      if (isMaskable(word)) literalSecret = true;
      return word.replaceAll('$', '$$');
    }
    variables.push(name);
    return `\${${name}}`;
  });
  if (variables.length === 0) {
    // Nothing came from the environment: the value as typed, `$` kept literal.
    return { value: value.replaceAll('$', '$$'), variables, literalSecret: isMaskable(value) };
  }
  return { value: words.join(''), variables, literalSecret };
}

function variableHolding(text: string, env: Env, preferred?: string): string | undefined {
  if (!isMaskable(text)) return undefined;
  if (preferred !== undefined && env[preferred] === text && !NOT_SECRET_VARIABLES.has(preferred))
    return preferred;
  const names = Object.keys(env)
    .filter(
      (name) =>
        env[name] === text && !NOT_SECRET_VARIABLES.has(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name),
    )
    .sort();
  return names[0];
}
