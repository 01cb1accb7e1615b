import { describe, expect, it } from 'vitest';
import { childEnvironment, isSecretVariableName } from './bash-env.js';

describe('bash child environment', () => {
  it.each([
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'GITHUB_TOKEN',
    'openai_api_key',
    'SERVICE_APIKEY',
    'PGPASSWORD',
    'DB_PASSWD',
    'AWS_SECRET_ACCESS_KEY',
    'CLIENT_SECRET',
  ])('treats %s as secret', (name) => {
    expect(isSecretVariableName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'FURFLY_HOME', 'KEYBOARD', 'TOKENIZER_DIR', 'SSH_AUTH_SOCK'])(
    'keeps %s',
    (name) => {
      expect(isSecretVariableName(name)).toBe(false);
    },
  );

  it('drops secret names and the names it is given, keeps the rest', () => {
    const env = {
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      DB_URL: 'postgres://u:p@h',
      LANG: 'C',
      GONE: undefined,
    };
    expect(childEnvironment(env, ['DB_URL'])).toEqual({ PATH: '/bin', LANG: 'C' });
  });
});
