/** The shape validators both eras' checks share: base64, MIME types, URIs, tool use in sampling. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  elicitationModeIssue,
  samplingToolsIssue,
  supportedElicitationModes,
  toolResultIdIssues,
  toolUseBalanceIssues,
} from './client-requests.js';
import { contentBlockIssues, promptResultIssues, readResultIssues } from './content.js';
import { isBase64, isMimeType, isUri, uriProblem } from './encoding.js';

const NOT_BASE64 = [...' -_.!*\n'];

describe('isBase64', () => {
  test.prop([fc.uint8Array({ maxLength: 200 })])('accepts every standard encoding', (bytes) => {
    expect(isBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
  });

  test.prop([fc.uint8Array({ maxLength: 200 }), fc.constantFrom(...NOT_BASE64), fc.nat()])(
    'refuses an encoding with a character outside the alphabet',
    (bytes, bad, at) => {
      const text = Buffer.from(bytes).toString('base64');
      const i = text.length === 0 ? 0 : at % text.length;
      expect(isBase64(`${text.slice(0, i)}${bad}${text.slice(i)}`)).toBe(false);
    },
  );

  test.prop([fc.uint8Array({ minLength: 1, maxLength: 200 }).filter((b) => b.length % 3 !== 0)])(
    'refuses an encoding whose padding was dropped',
    (bytes) => {
      expect(isBase64(Buffer.from(bytes).toString('base64').replace(/=+$/, ''))).toBe(false);
    },
  );

  it('refuses padding in the middle', () => {
    expect(isBase64('QQ==QQ==')).toBe(false);
  });
});

const NAME = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,20}$/);

describe('isMimeType', () => {
  test.prop([
    NAME,
    NAME,
    fc.array(fc.tuple(fc.stringMatching(/^[a-z0-9-]{1,10}$/), fc.stringMatching(/^[A-Za-z0-9.-]{1,10}$/)), {
      maxLength: 3,
    }),
  ])('accepts type/subtype with parameters', (type, subtype, params) => {
    const text = `${type}/${subtype}${params.map(([k, v]) => `; ${k}=${v}`).join('')}`;
    expect(isMimeType(text)).toBe(true);
  });

  test.prop([NAME])('refuses a bare type or subtype', (name) => {
    expect(isMimeType(name)).toBe(false);
  });

  it.each(['image', 'image/', '/png', 'image/png/x', 'image png', 'image/png;', 'text/plain; charset'])(
    'refuses %j',
    (text) => {
      expect(isMimeType(text)).toBe(false);
    },
  );

  it.each([
    'image/png',
    'audio/wav',
    'text/plain; charset=utf-8',
    'application/vnd.api+json',
    'text/x; a="b c"',
  ])('accepts %j', (text) => {
    expect(isMimeType(text)).toBe(true);
  });
});

describe('URIs (RFC 3986)', () => {
  test.prop([fc.webUrl({ withQueryParameters: true, withFragments: true })])('accepts web URLs', (url) => {
    expect(uriProblem(url)).toBeNull();
  });

  test.prop([
    fc.stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/),
    fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { maxLength: 4 }),
  ])('accepts custom schemes with paths', (scheme, segments) => {
    expect(isUri(`${scheme}://host/${segments.join('/')}`)).toBe(true);
    expect(isUri(`${scheme}:${segments.join('/')}`)).toBe(true);
  });

  test.prop([fc.webUrl(), fc.constantFrom(' ', '"', '<', '>', '\\', '^', '`', '{', '|', '}'), fc.nat()])(
    'refuses a URI with a character that must be encoded',
    (url, bad, at) => {
      const i = url.indexOf(':') + 1 + (at % (url.length - url.indexOf(':')));
      expect(isUri(`${url.slice(0, i)}${bad}${url.slice(i)}`)).toBe(false);
    },
  );

  it.each([
    ['furfly://test/with space', /not allowed/],
    ['no-scheme/path', /no scheme/],
    ['1http://x', /no scheme/],
    ['a:b#c#d', /more than one/],
    ['a:%zz', /not allowed/],
    ['a://h/[x]', /outside the host/],
  ])('%j is refused', (text, why) => {
    expect(uriProblem(text)).toMatch(why);
  });

  it('accepts IP literals', () => {
    expect(isUri('http://[::1]:8080/x')).toBe(true);
  });
});

describe('content issues', () => {
  it('names the rule and the place of each issue', () => {
    const result = {
      messages: [
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'user', content: { type: 'image', data: 'not base64!', mimeType: 'image' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'a b', blob: 'QQ==' } } },
      ],
    };
    expect(promptResultIssues(result).map((i) => `${i.rule} ${i.at}`)).toEqual([
      'base64 /messages/1/content/data',
      'mime /messages/1/content/mimeType',
      'uri /messages/2/content/resource/uri',
    ]);
    expect(readResultIssues({ contents: [{ uri: 'x:y', blob: '***' }] }).map((i) => i.rule)).toEqual([
      'base64',
    ]);
  });

  test.prop([fc.uint8Array({ maxLength: 64 }), fc.constantFrom('image/png', 'audio/wav')])(
    'a well-encoded media block has no issue',
    (bytes, mimeType) => {
      const block = { type: mimeType.split('/')[0], data: Buffer.from(bytes).toString('base64'), mimeType };
      expect(contentBlockIssues(block, '')).toEqual([]);
    },
  );
});

describe('elicitation modes', () => {
  it('reads the declared modes as the spec defines them', () => {
    expect(supportedElicitationModes({})).toEqual([]);
    expect(supportedElicitationModes({ elicitation: {} })).toEqual(['form']);
    expect(supportedElicitationModes({ elicitation: { url: {} } })).toEqual(['url']);
    expect(supportedElicitationModes({ elicitation: { form: {}, url: {} } })).toEqual(['form', 'url']);
  });

  test.prop([fc.constantFrom(undefined, 'form', 'url'), fc.subarray(['form', 'url'])])(
    'an issue exactly when the mode is not among the declared ones',
    (mode, declared) => {
      const caps = { elicitation: Object.fromEntries(declared.map((m) => [m, {}])) };
      const supported = declared.length > 0 ? declared : ['form'];
      const issue = elicitationModeIssue(mode === undefined ? {} : { mode }, caps);
      expect(issue === null).toBe(supported.includes(mode ?? 'form'));
    },
  );
});

describe('sampling', () => {
  it('needs sampling.tools for tools or a tool choice', () => {
    expect(samplingToolsIssue({ messages: [] }, {})).toBeNull();
    expect(samplingToolsIssue({ tools: [] }, { sampling: {} })).not.toBeNull();
    expect(samplingToolsIssue({ toolChoice: { mode: 'auto' } }, { sampling: {} })).not.toBeNull();
    expect(samplingToolsIssue({ tools: [] }, { sampling: { tools: {} } })).toBeNull();
  });

  const use = (id: string) => ({ type: 'tool_use', id, name: 't', input: {} });
  const result = (id: string) => ({ type: 'tool_result', toolUseId: id, content: [] });
  const text = { type: 'text', text: 'x' };

  test.prop([fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 5 })])(
    'a balanced exchange has no issue; dropping a result or changing an id is found',
    (ids) => {
      const messages = [
        { role: 'user', content: text },
        { role: 'assistant', content: ids.map(use) },
        { role: 'user', content: [...ids].reverse().map(result) },
      ];
      expect(toolUseBalanceIssues(messages)).toEqual([]);
      expect(toolResultIdIssues(messages)).toEqual([]);
      const renamed = structuredClone(messages);
      (renamed[2]!.content as { toolUseId: string }[])[0]!.toolUseId = 'other-id-!';
      expect(toolUseBalanceIssues(renamed)).toEqual([]);
      expect(toolResultIdIssues(renamed).length).toBeGreaterThan(0);
      const mixed = [...messages.slice(0, 2), { role: 'user', content: [...ids.map(result), text] }];
      expect(toolUseBalanceIssues(mixed).length).toBeGreaterThan(0);
      expect(toolResultIdIssues(mixed)).toEqual([]);
      expect(toolUseBalanceIssues(messages.slice(0, 2)).length).toBeGreaterThan(0);
    },
  );
});
