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
    // Red team M2: names the first rule missed.
    'SSH_PRIVATE_KEY',
    'OPENAI_KEY',
    'GH_PAT',
    'NPM_AUTH',
    'SENTRY_DSN',
    'AZURE_STORAGE_CONNECTION_STRING',
  ])('treats %s as secret', (name) => {
    expect(isSecretVariableName(name)).toBe(true);
  });

  it.each([
    'PATH',
    'HOME',
    'LANG',
    'TERM',
    'FURFLY_HOME',
    'KEYBOARD',
    'TOKENIZER_DIR',
    'SSH_AUTH_SOCK',
    'PWD',
    'OLDPWD',
    'KEYMAP',
    'GIT_AUTHOR_NAME',
    'SSH_KEY_PATH',
  ])('keeps %s', (name) => {
    expect(isSecretVariableName(name)).toBe(false);
  });

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

  it('drops a variable whose value is a URL with a password or a private key, whatever its name (M2)', () => {
    const env = {
      PATH: '/bin',
      DATABASE_URL: 'postgres://app:hunter2-db@db.internal/app',
      PUBLIC_URL: 'https://example.com/x',
      USER_URL: 'https://user@example.com/',
      DEPLOY: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----',
    };
    expect(childEnvironment(env)).toEqual({
      PATH: '/bin',
      PUBLIC_URL: 'https://example.com/x',
      USER_URL: 'https://user@example.com/',
    });
  });
});
