/**
 * The field-name judgement behind elicitation.form-no-secrets and mrtr.elicitation-form-no-secrets: narrow
 * enough that ordinary forms pass, wide enough that the spec's own examples (passwords, API keys, access
 * tokens, payment credentials) fail. The checks themselves are calibrated by the `elicit-form-password`
 * fixtures (fixtures/conformance/spec-breaker.elicit-form-password*.expected.json).
 */
import { describe, expect, it } from 'vitest';
import { secretFieldIssues } from './elicitation-secrets.js';

const form = (properties: Record<string, unknown>, mode?: string) => ({
  ...(mode ? { mode } : {}),
  message: 'Please fill in',
  requestedSchema: { type: 'object', properties },
});

describe('secret fields in form-mode elicitation', () => {
  it.each([
    ['password', {}],
    ['apiKey', {}],
    ['api_key', {}],
    ['x', { title: 'Your OpenAI API key' }],
    ['x', { description: 'Paste your access token here' }],
    ['cardNumber', {}],
    ['client_secret', {}],
    ['passphrase', {}],
  ])('flags %s %j', (name, property) => {
    expect(secretFieldIssues(form({ [name]: { type: 'string', ...property } }))).toHaveLength(1);
    expect(secretFieldIssues(form({ [name]: { type: 'string', ...property } }, 'form'))).toHaveLength(1);
  });

  it.each([
    ['name', {}],
    ['email', {}],
    ['token_count', { type: 'integer' }],
    ['verification_code', {}],
    ['x', { title: 'Passenger name' }],
    ['x', { description: 'How many tokens may the summary use?' }],
  ])('leaves %s %j alone', (name, property) => {
    expect(secretFieldIssues(form({ [name]: { type: 'string', ...property } }))).toEqual([]);
  });

  it('judges form mode only', () => {
    expect(
      secretFieldIssues({ mode: 'url', url: 'https://example.com/password', elicitationId: 'e' }),
    ).toEqual([]);
    expect(secretFieldIssues(form({ password: { type: 'string' } }, 'url'))).toEqual([]);
    expect(secretFieldIssues(null)).toEqual([]);
  });
});
