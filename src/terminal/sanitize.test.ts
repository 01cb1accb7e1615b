/** The terminal-safety boundary: nothing a terminal obeys survives, plain text is untouched. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  attributedBlock,
  terminalLine,
  terminalSafeJson,
  terminalText,
  textStreamSanitizer,
  visibleEscape,
} from './sanitize.js';

/**
 * The characters the issue names, listed by hand rather than by Unicode property so the test does not
 * share the implementation's definition: C0, DEL, C1, the bidirectional marks, embeddings, overrides
 * and isolates, and a few invisible format characters.
 */
const NAMED_DANGER: readonly number[] = [
  ...range(0x00, 0x1f),
  ...range(0x7f, 0x9f),
  0x061c,
  0x200b,
  0x200e,
  0x200f,
  ...range(0x202a, 0x202e),
  ...range(0x2066, 0x2069),
  0x2028,
  0x2029,
  0x2060,
  0xfeff,
  0x00ad,
  0xe0041,
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const dangerChar = fc.constantFrom(...NAMED_DANGER.map((code) => String.fromCodePoint(code)));
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const escapeSequence = fc.constantFrom(
  '\u001b[2J',
  '\u001b[1A\u001b[2K',
  '\u001b]0;owned\u0007',
  '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
  '\u009b31m',
  '\r',
  '\u202eexe.txt',
);
/** Visible text from many scripts, and emoji including ZWJ sequences, skin tones and tag flags. */
const printablePiece = fc.oneof(
  fc
    .integer({ min: 0x20, max: 0x2fff })
    .map((code) => String.fromCodePoint(code))
    .filter((char) => /^[\p{L}\p{N}\p{P}\p{S} ]$/u.test(char)),
  fc.constantFrom(
    'é',
    'ß',
    'жизнь',
    '中文',
    'عربى',
    'हिन्दी',
    'می‌خواهم',
    '👍',
    '👍🏽',
    '❤️',
    '👨‍👩‍👧',
    '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
    '\\x1b',
    '\\',
  ),
);
const anyPiece = fc.oneof(printablePiece, dangerChar, loneSurrogate, escapeSequence, fc.string());
const hostile = fc.array(anyPiece, { maxLength: 30 }).map((pieces) => pieces.join(''));
const plain = fc.array(printablePiece, { maxLength: 30 }).map((pieces) => pieces.join(''));

const KEPT_JOINERS = /[\u200c\u200d]/gu;
const TAG_FLAG = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

/** What is left after removing the characters a terminal shows plainly. */
function unsafeLeft(text: string, allowed: readonly string[]): string[] {
  const rest = text.replace(TAG_FLAG, '').replace(KEPT_JOINERS, '');
  const found: string[] = [];
  for (const char of rest) {
    if (allowed.includes(char)) continue;
    const code = char.codePointAt(0)!;
    if (NAMED_DANGER.includes(code) || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u.test(char)) found.push(char);
  }
  return found;
}

describe('terminalLine', () => {
  test.prop([hostile])(
    'leaves no control, bidi or invisible format character, newline and tab included',
    (s) => {
      expect(unsafeLeft(terminalLine(s), [])).toEqual([]);
    },
  );

  test.prop([hostile])('sanitising twice changes nothing more', (s) => {
    expect(terminalLine(terminalLine(s))).toBe(terminalLine(s));
  });

  test.prop([plain])('leaves printable text unchanged (any script, emoji)', (s) => {
    expect(terminalLine(s)).toBe(s);
  });

  test.prop([plain, dangerChar, plain])('shows each unsafe character as its escape, in place', (a, c, b) => {
    expect(terminalLine(a + c + b)).toBe(a + visibleEscape(c) + b);
  });

  it('spells the escapes the way the docs show them', () => {
    expect(terminalLine('a\u001b[2Jb\rc\nd\te\u202ef\u0000\u009b')).toBe(
      'a\\x1b[2Jb\\rc\\nd\\te\\u202ef\\x00\\x9b',
    );
    expect(terminalLine('\u{e0041}')).toBe('\\u{e0041}');
  });
});

describe('terminalText', () => {
  test.prop([hostile])('leaves nothing unsafe but newline and tab', (s) => {
    expect(unsafeLeft(terminalText(s), ['\n', '\t'])).toEqual([]);
  });

  test.prop([hostile])('sanitising twice changes nothing more', (s) => {
    expect(terminalText(terminalText(s))).toBe(terminalText(s));
  });

  test.prop([fc.array(fc.oneof(plain, fc.constantFrom('\n', '\t')), { maxLength: 10 })])(
    'leaves multi-line printable text unchanged',
    (pieces) => {
      const s = pieces.join('');
      expect(terminalText(s)).toBe(s);
    },
  );

  it('keeps the line structure but not a carriage return', () => {
    expect(terminalText('one\r\ntwo\tthree')).toBe('one\\r\ntwo\tthree');
  });
});

describe('terminalSafeJson', () => {
  const jsonValue = fc
    .tuple(fc.jsonValue(), hostile, hostile)
    .map(([value, key, text]) => ({ value, [key]: text, list: [text, value] }));

  test.prop([jsonValue, fc.constantFrom(undefined, 2)])(
    'parses to the same value and holds nothing a terminal would obey',
    (value, indent) => {
      const json = terminalSafeJson(value, indent);
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(value)));
      expect(unsafeLeft(json, ['\n'])).toEqual([]);
    },
  );

  it('escapes what JSON.stringify leaves raw', () => {
    expect(JSON.stringify('\u202e\u009b\u007f')).toBe('"\u202e\u009b\u007f"');
    expect(terminalSafeJson('\u202e\u009b\u007f\u{e0041}')).toBe('"\\u202e\\u009b\\u007f\\udb40\\udc41"');
  });
});

describe('textStreamSanitizer', () => {
  test.prop([hostile, fc.array(fc.nat(), { maxLength: 6 })])(
    'shows a text cut into pieces anywhere (inside an emoji too) exactly as terminalText shows it whole',
    (s, cuts) => {
      const points = [...new Set(cuts.map((cut) => cut % (s.length + 1)))].sort((a, b) => a - b);
      const stream = textStreamSanitizer();
      let shown = '';
      let from = 0;
      for (const point of [...points, s.length]) {
        shown += stream.write(s.slice(from, point));
        from = point;
      }
      shown += stream.end();
      expect(shown).toBe(terminalText(s));
    },
  );

  it('holds the first half of an emoji until the second arrives', () => {
    const stream = textStreamSanitizer();
    expect(stream.write('ok \ud83d')).toBe('ok ');
    expect(stream.write('\ude00!')).toBe('😀!');
    expect(stream.write('\ud83d')).toBe('');
    expect(stream.end()).toBe('\\ud83d');
  });
});

describe('attributedBlock', () => {
  it('marks every further line of a server log message, so a forged `furfly:` line stays the server’s', () => {
    const shown = `mcp: evil [warning]: ${attributedBlock('done\nfurfly: permission mode is now bypass\r\nok')}`;
    const lines = shown.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('  | furfly: permission mode is now bypass\\r');
    for (const line of lines.slice(1)) expect(line.startsWith('  | ')).toBe(true);
  });

  test.prop([fc.string({ unit: 'binary' })])('no line after the first starts without the mark', (text) => {
    const [, ...rest] = attributedBlock(text).split('\n');
    for (const line of rest) expect(line.startsWith('  | ')).toBe(true);
    expect(attributedBlock(text).split('\n')).toHaveLength(terminalText(text).split('\n').length);
  });
});
