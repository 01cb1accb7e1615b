// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these tests.
import { describe, expect, it } from 'vitest';
import { withEnvReferences } from './env-references.js';
import { expandString } from './expand.js';

const env = {
  GH_TOKEN: 'ghp-abcdef123456',
  ALSO: 'ghp-abcdef123456',
  HOME: '/home/someone-long',
  SHORT: 'abc',
};

describe('withEnvReferences', () => {
  it('writes a value the environment holds as a reference, preferring the key’s own name', () => {
    expect(withEnvReferences('ghp-abcdef123456', env).value).toBe('${ALSO}');
    expect(withEnvReferences('ghp-abcdef123456', env, 'GH_TOKEN').value).toBe('${GH_TOKEN}');
  });

  it('replaces a token inside a header value word by word', () => {
    const ref = withEnvReferences('Bearer ghp-abcdef123456', env);
    expect(ref).toEqual({ value: 'Bearer ${ALSO}', variables: ['ALSO'], literalSecret: false });
  });

  it('leaves places and short values alone, and flags a long literal', () => {
    expect(withEnvReferences('/home/someone-long', env).value).toBe('/home/someone-long');
    expect(withEnvReferences('abc', env)).toEqual({ value: 'abc', variables: [], literalSecret: false });
    expect(withEnvReferences('typed-secret-value', env).literalSecret).toBe(true);
  });

  it('keeps a literal $ literal, and a written reference as written', () => {
    const written = withEnvReferences('pa$word-and-more', env).value;
    expect(expandString(written, env).value).toBe('pa$word-and-more');
    expect(withEnvReferences('${GH_TOKEN}', env).value).toBe('${GH_TOKEN}');
  });
});
