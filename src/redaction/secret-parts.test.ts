import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Redactor } from './redactor.js';
import { headerSecrets, headerValueSecrets, maskUrl, urlSecrets } from './secret-parts.js';

describe('headerValueSecrets', () => {
  it('makes the token of `Bearer <token>` a secret on its own', () => {
    const parts = headerValueSecrets('Bearer tok-0123456789abcdef');
    expect(parts).toContain('Bearer tok-0123456789abcdef');
    expect(parts).toContain('tok-0123456789abcdef');
    // A server echoing only the token is caught, and the word Bearer stays readable.
    expect(new Redactor(parts).text('you are tok-0123456789abcdef (Bearer)')).toBe('you are *** (Bearer)');
  });

  it('splits on commas and semicolons and takes the values of name=value tokens', () => {
    const parts = headerValueSecrets('token=xyz-secret-42; session="quoted-secret-7", other');
    expect(parts).toEqual(expect.arrayContaining(['xyz-secret-42', 'quoted-secret-7']));
  });

  it('decodes Basic credentials: user:password and each half', () => {
    const encoded = Buffer.from('deploy-user:hunter2-long-pass').toString('base64');
    const parts = headerValueSecrets(`Basic ${encoded}`);
    expect(parts).toEqual(
      expect.arrayContaining([encoded, 'deploy-user:hunter2-long-pass', 'deploy-user', 'hunter2-long-pass']),
    );
    expect(headerValueSecrets('Basic not/base64!')).not.toContain('');
  });

  it('keeps base64 padding with the token instead of splitting at "="', () => {
    expect(headerValueSecrets('Token YWJjZGVmZ2hpams=')).toContain('YWJjZGVmZ2hpams=');
  });

  it('treats content-negotiation headers as no secret', () => {
    expect(headerSecrets({ Accept: 'application/json, text/event-stream', 'X-Key': 'k-123456789' })).toEqual([
      'k-123456789',
      'k-123456789',
    ]);
  });
});

describe('urlSecrets', () => {
  it('takes the password, query values and fragment values, as written and decoded', () => {
    const parts = urlSecrets(
      'https://user:p%40ss-word-1@host/mcp?token=abc%2Fdef-123&x=1#access_token=frag-99',
    );
    expect(parts).toEqual(
      expect.arrayContaining([
        'p%40ss-word-1',
        'p@ss-word-1',
        'abc%2Fdef-123',
        'abc/def-123',
        '1',
        'frag-99',
      ]),
    );
    expect(parts).not.toContain('user');
  });

  it('takes a lone user name (a token used as the user) and nothing from a non-URL', () => {
    expect(urlSecrets('https://ghp_tokenvalue123@github.com/x.git')).toContain('ghp_tokenvalue123');
    expect(urlSecrets('not a url at all')).toEqual([]);
    expect(urlSecrets('/just/a/path?x=1')).toEqual([]);
  });
});

describe('maskUrl', () => {
  it('masks the password and every query value; scheme, user, host, path and names stay', () => {
    expect(maskUrl('https://user:pass@host/mcp?token=abc')).toBe('https://user:***@host/mcp?token=***');
    expect(maskUrl('http://127.0.0.1:8080/a/b?x=1&y=&z=two#frag')).toBe(
      'http://127.0.0.1:8080/a/b?x=***&y=&z=***#frag',
    );
  });

  it('masks a lone user name, a bare query word and fragment values', () => {
    expect(maskUrl('https://ghp_abc@github.com/o/r.git')).toBe('https://***@github.com/o/r.git');
    expect(maskUrl('https://h/cb?sk-abcdef#access_token=t0k&state=s')).toBe(
      'https://h/cb?***#access_token=***&state=***',
    );
  });

  // Secrets are upper case and marked (PW…, QV…); everything else is lower case, so a leak is visible.
  const lower = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'),
    minLength: 1,
    maxLength: 10,
  });
  const secretPart = (mark: string) =>
    fc
      .string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ%._~!$'), maxLength: 12 })
      .map((s) => mark + s);
  test.prop([
    lower,
    fc.option(secretPart('PW'), { nil: undefined }),
    lower,
    fc.array(lower, { maxLength: 3 }),
    fc.array(fc.tuple(lower, secretPart('QV')), { maxLength: 4 }),
  ])(
    'keeps host and path exactly and shows no password or query value',
    (user, password, host, segments, query) => {
      const userinfo = password === undefined ? '' : `${user}:${password}@`;
      const path = segments.map((segment) => `/${segment}`).join('');
      const search = query.length === 0 ? '' : `?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
      const masked = maskUrl(`https://${userinfo}${host}.example${path}${search}`);
      expect(masked).not.toMatch(/PW|QV/);
      expect(
        masked.startsWith(`https://${password === undefined ? '' : `${user}:***@`}${host}.example${path}`),
      ).toBe(true);
      for (const [k] of query) expect(masked).toContain(`${k}=***`);
    },
  );

  it('leaves URLs without credentials and non-URLs alone', () => {
    for (const text of ['https://example.com/mcp', 'node', './server.js', '--flag=value', 'a b://c'])
      expect(maskUrl(text)).toBe(text);
  });
});
