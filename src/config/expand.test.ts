// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these strings, not template mistakes.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { formatConfigError } from './errors.js';
import { expandConfig, expandString } from './expand.js';
import { toPlain } from './tree.js';
import { locatedMap } from './tree.test-helpers.js';

describe('expandString', () => {
  it.each([
    ['${A}', { A: 'x' }, 'x', true],
    ['pre-${A}-post', { A: 'x' }, 'pre-x-post', true],
    ['${A:-d}', {}, 'd', false],
    ['${A:-d}', { A: '' }, 'd', false],
    ['${A:-d}', { A: 'v' }, 'v', true],
    ['${A:-}', {}, '', false],
    ['${A}', { A: '' }, '', true],
    ['$$', {}, '$', false],
    ['$${A}', { A: 'x' }, '${A}', false],
    ['cost $5 and $HOME', {}, 'cost $5 and $HOME', false],
    ['trailing $', {}, 'trailing $', false],
    ['${A:-has:colon}', {}, 'has:colon', false],
  ])('%s with %j is %j', (input, env, value, fromEnv) => {
    expect(expandString(input, env)).toEqual({ value, fromEnv, undefinedVariables: [], malformed: false });
  });

  it('lists every undefined variable once, in order', () => {
    expect(expandString('${B}${A}${B}${C:-c}', {}).undefinedVariables).toEqual(['B', 'A']);
  });

  it.each(['${', '${A', '${}', '${1A}', '${A B}', '${A:=x}'])('%s is malformed', (input) => {
    expect(expandString(input, { A: 'x' }).malformed).toBe(true);
  });

  test.prop([fc.string()])('text without $ is unchanged', (s) => {
    const text = s.replace(/\$/g, '');
    expect(expandString(text, {}).value).toBe(text);
  });

  test.prop([fc.string()])('doubling every $ gives the text back literally', (s) => {
    expect(expandString(s.replace(/\$/g, '$$$$'), {}).value).toBe(s);
  });
});

describe('expandConfig', () => {
  const config = {
    max_iterations: '${NOT_EXPANDED}',
    providers: [{ name: 'p', api_key: '${KEY}', base_url: 'http://${HOST:-localhost}' }],
    mcp_servers: {
      s: { type: 'stdio', command: '${BIN}', args: ['${ARG}'], env: { T: '${TOKEN}' }, cwd: '${CWD}' },
      h: { type: 'http', url: '${URL}', headers: { Authorization: 'Bearer ${TOKEN}' } },
      off: { type: 'http', enabled: false, url: '${NOPE}' },
    },
  };

  it('expands exactly the listed fields and marks values that came from the environment', () => {
    const env = { KEY: 'k', BIN: 'b', ARG: 'a', TOKEN: 't', URL: 'http://u', CWD: 'c', NOT_EXPANDED: 'n' };
    const result = expandConfig(locatedMap(config, 'f'), env);
    expect(result.errors).toEqual([]);
    expect(toPlain(result.root)).toEqual({
      max_iterations: '${NOT_EXPANDED}',
      providers: [{ name: 'p', api_key: 'k', base_url: 'http://localhost' }],
      mcp_servers: {
        s: { type: 'stdio', command: 'b', args: ['a'], env: { T: 't' }, cwd: '${CWD}' },
        h: { type: 'http', url: 'http://u', headers: { Authorization: 'Bearer t' } },
        off: { type: 'http', enabled: false, url: '${NOPE}' },
      },
    });
  });

  it('collects every value that a ${VAR} reference filled in, as secrets to redact', () => {
    const env = {
      KEY: 'k-1',
      BIN: 'b-1',
      ARG: 'a-1',
      TOKEN: 't-1',
      URL: 'http://u',
      NOT_EXPANDED: 'n-1',
      NOPE: 'x',
    };
    const result = expandConfig(locatedMap(config, 'f'), env);
    expect([...result.secretValues].sort()).toEqual(['a-1', 'b-1', 'http://u', 'k-1', 't-1']);
  });

  it('reports every undefined variable at once, by key path, without values', () => {
    const result = expandConfig(locatedMap(config, 'f'), { CWD: 'secret-cwd-value' });
    expect(result.errors.map(formatConfigError)).toEqual([
      'f:1:1: providers[0].api_key references undefined variable ${KEY}',
      'f:1:1: mcp_servers.s.command references undefined variable ${BIN}',
      'f:1:1: mcp_servers.s.args[0] references undefined variable ${ARG}',
      'f:1:1: mcp_servers.s.env.T references undefined variable ${TOKEN}',
      'f:1:1: mcp_servers.h.url references undefined variable ${URL}',
      'f:1:1: mcp_servers.h.headers.Authorization references undefined variable ${TOKEN}',
    ]);
    expect(result.failedPaths.has('mcp_servers.s.env.T')).toBe(true);
  });
});
