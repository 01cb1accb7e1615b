import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isMaskable, MASK, MIN_SECRET_LENGTH, Redactor } from './redactor.js';

/** Secrets as they come: tokens with the characters keys and passwords use, at least the minimum long. */
const secret = fc
  .string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.+/=:@"\\ %'),
    minLength: MIN_SECRET_LENGTH,
    maxLength: 40,
  })
  .filter(isMaskable);

describe('Redactor', () => {
  test.prop([fc.array(secret, { minLength: 1, maxLength: 5 }), fc.string(), fc.string(), fc.nat()])(
    'no secret embedded anywhere in arbitrary text survives',
    (secrets, before, after, pick) => {
      const chosen = secrets[pick % secrets.length]!;
      const out = new Redactor(secrets).text(`${before}${chosen}${after}`);
      for (const s of secrets) expect(out).not.toContain(s);
    },
  );

  test.prop([fc.array(secret, { minLength: 1, maxLength: 4 }), fc.array(fc.string(), { maxLength: 6 })])(
    'no secret survives however often and wherever the secrets are mixed into text',
    (secrets, fillers) => {
      const text = fillers.map((filler, i) => filler + secrets[i % secrets.length]!).join('');
      const out = new Redactor(secrets).text(text);
      for (const s of secrets) expect(out).not.toContain(s);
    },
  );

  test.prop([fc.array(secret, { maxLength: 5 }), fc.string({ maxLength: 200 })])(
    'text holding no secret (in any spelling) comes back unchanged',
    (secrets, text) => {
      const redactor = new Redactor(secrets);
      fc.pre(!redactor.finds(text));
      expect(redactor.text(text)).toBe(text);
    },
  );

  test.prop([secret, fc.integer({ min: 1, max: 7 }), fc.string({ maxLength: 12 })])(
    'overlapping secrets (one ends where the other begins) leave no piece of either',
    (base, overlap, tail) => {
      // a = base, b = the last `overlap` characters of base followed by more: the two overlap in the text.
      const a = base;
      const b = base.slice(-overlap) + tail + 'ZZZZZZZZ';
      const text = `<${a}${b.slice(overlap)}>`;
      const out = new Redactor([a, b]).text(text);
      expect(out).toBe(`<${MASK}>`);
    },
  );

  it('masks a secret contained in another one whole, and both when they overlap', () => {
    const redactor = new Redactor(['sk-12345678', 'sk-12345678-longer']);
    expect(redactor.text('a sk-12345678 b sk-12345678-longer c')).toBe(`a ${MASK} b ${MASK} c`);
    const overlapping = new Redactor(['abcdefgh12', 'gh12345678']);
    expect(overlapping.text('x abcdefgh12345678 y')).toBe(`x ${MASK} y`);
  });

  it('learns a secret that appears later (a refreshed token), except Redactor.none', () => {
    const redactor = new Redactor(['first-secret-value']);
    const earlier = redactor.with([]);
    redactor.learn('refreshed-token-0123456789');
    expect(redactor.text('a refreshed-token-0123456789 b first-secret-value')).toBe('a *** b ***');
    expect(redactor.text(encodeURIComponent('x refreshed-token-0123456789'))).not.toContain(
      'refreshed-token',
    );
    // A copy made before does not learn it; the shared "redacts nothing" never does.
    expect(earlier.text('refreshed-token-0123456789')).toBe('refreshed-token-0123456789');
    Redactor.none.learn('refreshed-token-0123456789');
    expect(Redactor.none.text('refreshed-token-0123456789')).toBe('refreshed-token-0123456789');
  });

  it('ignores values too short or too common to mask, so ordinary output stays readable', () => {
    const redactor = new Redactor(['1', 'true', 'admin12', 'production', 'localhost', 'long-enough-1']);
    expect(redactor.secrets).toEqual(['long-enough-1']);
    expect(redactor.text('true admin12 production localhost:1 long-enough-1')).toBe(
      `true admin12 production localhost:1 ${MASK}`,
    );
  });

  it('also finds the percent-encoded and JSON-escaped spellings of a secret', () => {
    const redactor = new Redactor(['p@ss/w0rd "quoted" \\x']);
    expect(redactor.text('url=p%40ss%2Fw0rd%20%22quoted%22%20%5Cx')).toBe(`url=${MASK}`);
    expect(redactor.text(JSON.stringify({ k: 'p@ss/w0rd "quoted" \\x' }))).toBe(`{"k":"${MASK}"}`);
  });

  it('redacts structured values string by string, keys included, keeping the structure', () => {
    const redactor = new Redactor(['tok-abcdef123']);
    const input = {
      text: 'hello tok-abcdef123',
      nested: [{ deep: ['tok-abcdef123', 42, true, null] }],
      'tok-abcdef123': 'as a key',
      ['__proto__']: 'stays data',
    };
    const out = redactor.value(input);
    expect(out).toEqual({
      text: `hello ${MASK}`,
      nested: [{ deep: [MASK, 42, true, null] }],
      [MASK]: 'as a key',
      ['__proto__']: 'stays data',
    });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).not.toContain('tok-abcdef123');
    // The input is not changed.
    expect(input.text).toBe('hello tok-abcdef123');
  });

  it('walks a value nested far deeper than the stack would allow', () => {
    let deep: unknown = 'tok-abcdef123';
    for (let i = 0; i < 50_000; i++) deep = { a: [deep] };
    const out = new Redactor(['tok-abcdef123']).value(deep);
    let inner: unknown = out;
    for (let i = 0; i < 50_000; i++) inner = (inner as { a: unknown[] }).a[0];
    expect(inner).toBe(MASK);
  });

  test.prop([fc.array(secret, { minLength: 1, maxLength: 3 }), fc.jsonValue()])(
    'JSON keeps its structure: secret-free parts come back equal, the secrets are masked, it still serializes',
    (secrets, json) => {
      const redactor = new Redactor(secrets);
      fc.pre(!redactor.finds(JSON.stringify(json) ?? ''));
      const out = redactor.value({ data: json, leak: secrets.join(' ') });
      expect(out.data).toEqual(json);
      expect(JSON.parse(JSON.stringify(out)).leak).toBe(out.leak);
      for (const text of stringsIn(out)) for (const s of secrets) expect(text).not.toContain(s);
    },
  );

  it('with() combines two redactors; none redacts nothing', () => {
    const both = new Redactor(['first-secret-1']).with(new Redactor(['second-secret-2']));
    expect(both.text('first-secret-1 second-secret-2')).toBe(`${MASK} ${MASK}`);
    expect(Redactor.none.text('first-secret-1')).toBe('first-secret-1');
  });
});

/** Every string in a JSON value, keys included. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item)]);
  }
  return [];
}
