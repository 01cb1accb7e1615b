/**
 * The judgement behind elicitation.url-no-credentials: credentials in a URL's user information, query or
 * fragment fail; opaque ids, state, code and plain `token` parameters pass. The check itself is calibrated
 * by fixtures/conformance/spec-breaker.elicit-url-password.expected.json.
 */
import { describe, expect, it } from 'vitest';
import { urlCredentialIssues } from './elicitation-url-secrets.js';

describe('credentials in elicitation URLs', () => {
  it.each([
    'https://example.com/connect?password=hunter2',
    'https://example.com/connect?api_key=abc123',
    'https://example.com/cb#access_token=abc.def.ghi',
    'https://alice:hunter2@example.com/connect',
    'https://example.com/x?client_secret=s3cr3t&state=1',
  ])('flags %s', (url) => {
    expect(urlCredentialIssues(url)).toHaveLength(1);
  });

  it.each([
    'https://example.com/connect?id=550e8400-e29b-41d4-a716-446655440000',
    'https://example.com/oauth/authorize?client_id=app&state=xyz&code_challenge=abc',
    'https://example.com/verify?token=opaque123',
    'https://example.com/connect?password=',
    'https://alice@example.com/connect',
    'not a url',
  ])('leaves %s alone', (url) => {
    expect(urlCredentialIssues(url)).toEqual([]);
  });

  it('never repeats the value', () => {
    expect(urlCredentialIssues('https://example.com/?password=hunter2').join(' ')).not.toContain('hunter2');
  });
});
