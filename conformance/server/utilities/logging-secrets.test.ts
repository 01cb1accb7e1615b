/**
 * The judgement behind logging.no-secrets: credential formats and values assigned to a secret's name
 * fail, ordinary log text and masked values pass. The check itself is calibrated by the `log-secret`
 * fixture (fixtures/conformance/spec-breaker.log-secret.expected.json).
 */
import { describe, expect, it } from 'vitest';
import { logSecretIssues } from './logging-secrets.js';

describe('secrets in log messages', () => {
  it.each([
    ['Authorization: Bearer abcdefghijklmnopqrstuvwx'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE...'],
    ['using AKIAIOSFODNN7EXAMPLE'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['key sk-ant-abcdefghijklmnopqrstuvwx'],
    ['login with password=hunter2!'],
    [{ message: 'connect', apiKey: 'abcd1234efgh' }],
    [{ config: { client_secret: 's3cr3tvalue' } }],
  ])('flags %j', (data) => {
    expect(logSecretIssues(data).length).toBeGreaterThan(0);
  });

  it.each([
    ['server started on port 3000'],
    ['used 1200 tokens of 4000'],
    ['tokenizer loaded'],
    ['password=*** (masked)'],
    [{ apiKey: '[REDACTED]' }],
    [{ password: '<hidden>' }],
    [{ apiKey: null }],
    ['the api key is missing; set API_KEY'],
    [{ access_token_expires_in: 3600 }],
    ['task-1234 finished'],
  ])('leaves %j alone', (data) => {
    expect(logSecretIssues(data)).toEqual([]);
  });

  it('never repeats the secret', () => {
    const issues = logSecretIssues({ apiKey: 'abcd1234efgh' }).join(' ');
    expect(issues).not.toContain('abcd1234efgh');
  });
});
