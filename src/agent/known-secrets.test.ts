// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
/** Which values the session's redactor masks, from a real config file loaded by loadConfig. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { knownSecrets } from './known-secrets.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function load(config: unknown, env: Record<string, string>) {
  dir = mkdtempSync(path.join(os.tmpdir(), 'furfly-known-secrets-'));
  mkdirSync(path.join(dir, '.git'));
  mkdirSync(path.join(dir, '.furflycode'));
  mkdirSync(path.join(dir, 'home'));
  writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), JSON.stringify(config));
  const fullEnv = { ...env, FURFLY_HOME: path.join(dir, 'home') };
  const loaded = loadConfig({ cwd: dir, env: fullEnv, trustProject: true });
  expect(loaded.ok, loaded.ok ? '' : JSON.stringify(loaded.errors)).toBe(true);
  return { loaded, env: fullEnv };
}

describe('knownSecrets', () => {
  it('masks config secrets, ${VAR} values, the provider key and secret-named variables', () => {
    const { loaded, env } = load(
      {
        providers: [
          {
            name: 'p',
            protocol: 'anthropic',
            model: 'm',
            api_key: '${MY_KEY}',
            base_url: 'https://proxy/?k=base-url-key-1',
          },
        ],
        mcp_servers: {
          web: {
            type: 'http',
            url: 'https://user:url-password-2@host/mcp?token=url-query-3',
            headers: { Authorization: 'Bearer ${GH}', Accept: 'application/json, text/event-stream' },
          },
          local: {
            type: 'stdio',
            command: '${HOME}/bin/server',
            args: ['--home', '${HOME}'],
            env: { DB: 'env-value-4' },
          },
        },
      },
      {
        MY_KEY: 'provider-key-5',
        GH: 'header-token-6',
        HOME: '/home/someone',
        AWS_SECRET_ACCESS_KEY: 'aws-secret-7',
        PLAIN_SETTING: 'plain-value-8',
      },
    );
    const redactor = knownSecrets({ loaded, env, providerKey: 'provider-key-5' });
    const text = [
      'base-url-key-1 url-password-2 url-query-3 header-token-6 env-value-4 provider-key-5 aws-secret-7',
      'plain-value-8 /home/someone/project application/json',
    ].join('\n');
    expect(redactor.text(text)).toBe(
      ['*** *** *** *** *** *** ***', 'plain-value-8 /home/someone/project application/json'].join('\n'),
    );
  });

  it('without a config still knows the provider key and secret-named variables', () => {
    const redactor = knownSecrets({
      env: { ANTHROPIC_API_KEY: 'sk-ant-only-env-9' },
      providerKey: 'sk-ant-only-env-9',
    });
    expect(redactor.text('key sk-ant-only-env-9')).toBe('key ***');
  });
});
