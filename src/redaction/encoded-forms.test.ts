/**
 * Issue 25, item 6: a known secret is masked also in its base64, base64url and hex encodings, wherever
 * it sits in the encoded text and however the encoder wrapped its lines (`base64` of the token store).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { encodingsOf, MASK, Redactor } from './redactor.js';

const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{8,48}$/);
const surrounding = fc.uint8Array({ maxLength: 40 });

function wrap(text: string, width: number): string {
  if (width === 0) return text;
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
  return lines.join('\n');
}

/** True when no encoding of `value` survives in `text` (masks split it; line breaks do not). */
function noEncodingSurvives(text: string, value: string): boolean {
  const pieces = text.split(MASK).map((piece) => piece.replace(/[\r\n]/g, ''));
  return encodingsOf(value).every((form) => pieces.every((piece) => !piece.includes(form)));
}

describe('encoded secrets', () => {
  test.prop([secret, surrounding, surrounding, fc.constantFrom(0, 60, 64, 76)], { numRuns: 200 })(
    'base64 and base64url of a text holding the secret are masked, lines wrapped or not',
    (value, before, after, width) => {
      const bytes = Buffer.concat([Buffer.from(before), Buffer.from(value), Buffer.from(after)]);
      const redactor = new Redactor([value]);
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = wrap(bytes.toString(encoding), width);
        const masked = redactor.text(encoded);
        expect(masked).toContain(MASK);
        expect(noEncodingSurvives(masked, value)).toBe(true);
        expect(redactor.finds(encoded)).toBe(true);
      }
    },
  );

  test.prop([secret, surrounding, surrounding, fc.boolean(), fc.constantFrom(0, 60)], { numRuns: 200 })(
    'hex of a text holding the secret is masked, in either case',
    (value, before, after, upper, width) => {
      const hex = Buffer.concat([Buffer.from(before), Buffer.from(value), Buffer.from(after)]).toString(
        'hex',
      );
      const encoded = wrap(upper ? hex.toUpperCase() : hex, width);
      const masked = new Redactor([value]).text(encoded);
      expect(masked).toContain(MASK);
      expect(noEncodingSurvives(masked, value)).toBe(true);
    },
  );

  test.prop([secret, fc.string({ maxLength: 60 })], { numRuns: 200 })(
    'a secret the redactor learns later is masked in its encodings too',
    (value, text) => {
      const redactor = new Redactor([]);
      const target = new Redactor(['placeholder-secret-1']);
      target.learn(value);
      const encoded = Buffer.from(`${text}${value}`).toString('base64');
      expect(noEncodingSurvives(target.text(encoded), value)).toBe(true);
      expect(redactor.text(encoded)).toBe(encoded);
    },
  );

  it('masks the refresh token in base64 of a token store as the base64 tool prints it', () => {
    const refresh = 'rt_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const store = JSON.stringify(
      { servers: { gh: { access_token: 'at_short', refresh_token: refresh } } },
      null,
      2,
    );
    const printed = wrap(Buffer.from(store).toString('base64'), 76);
    const masked = new Redactor([refresh]).text(printed);
    expect(masked).not.toBe(printed);
    const decoded = masked
      .split(MASK)
      .map((piece) => Buffer.from(piece.replace(/\n/g, ''), 'base64').toString('latin1'))
      .join('');
    expect(decoded).not.toContain(refresh);
    expect(decoded).not.toContain(refresh.slice(4, 20));
  });
});
