import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parsePromptArguments, splitWords } from './prompt-arguments.js';
import type { PromptArgumentInfo } from './server-features.js';

const word = fc.string({ minLength: 1, maxLength: 8 }).filter((w) => !/\s/.test(w) && !w.includes('='));

const declared: PromptArgumentInfo[] = [
  { name: 'name', required: true },
  { name: 'tone', required: false },
  { name: 'lang', required: true },
];

describe('parsePromptArguments', () => {
  it('fills arguments by position in declared order, and by name=value in any order', () => {
    expect(parsePromptArguments(['Ada', 'warm', 'en'], declared)).toEqual({
      values: { name: 'Ada', tone: 'warm', lang: 'en' },
      missing: [],
      problems: [],
    });
    expect(parsePromptArguments(['lang=de', 'Ada'], declared)).toEqual({
      values: { lang: 'de', name: 'Ada' },
      missing: [],
      problems: [],
    });
  });

  it('names the missing required arguments and the words that fit nowhere', () => {
    expect(parsePromptArguments(['tone=dry'], declared).missing).toEqual(['name', 'lang']);
    expect(parsePromptArguments(['a', 'b', 'c', 'd'], declared).problems).toEqual([
      '"d" is one argument too many',
    ]);
    expect(parsePromptArguments(['name=a', 'name=b', 'x'], declared).problems).toEqual([
      'the argument "name" is given twice',
    ]);
  });

  it('takes a word with "=" whose left side is no argument name as a positional value', () => {
    expect(parsePromptArguments(['a=b', 'lang=fr'], declared).values).toEqual({ name: 'a=b', lang: 'fr' });
  });

  test.prop([fc.array(word, { maxLength: 6 })])(
    'positional words land in declared order, the rest are problems',
    (words) => {
      const parsed = parsePromptArguments(words, declared);
      for (const [i, arg] of declared.slice(0, words.length).entries())
        expect(parsed.values[arg.name]).toBe(words[i]);
      expect(parsed.problems).toHaveLength(Math.max(0, words.length - declared.length));
      expect(parsed.missing).toEqual(
        declared.filter((a, i) => a.required && i >= words.length).map((a) => a.name),
      );
    },
  );

  test.prop([fc.dictionary(fc.constantFrom('name', 'tone', 'lang'), word)])(
    'name=value words round-trip',
    (values) => {
      const parsed = parsePromptArguments(
        Object.entries(values).map(([k, v]) => `${k}=${v}`),
        declared,
      );
      expect(parsed.values).toEqual(values);
      expect(parsed.problems).toEqual([]);
    },
  );
});

describe('splitWords', () => {
  it('splits on whitespace and keeps quoted spaces in one word', () => {
    expect(splitWords(`  a "b c"  'd e'f `)).toEqual(['a', 'b c', 'd ef']);
    expect(splitWords('name="" x')).toEqual(['name=', 'x']);
    expect(splitWords('"unclosed quote')).toEqual(['unclosed quote']);
  });

  test.prop([fc.array(word, { maxLength: 6 })])(
    'words without quotes or spaces come back as they were',
    (words) => {
      const plain = words.filter((w) => !/["']/.test(w));
      expect(splitWords(plain.join('  '))).toEqual(plain);
    },
  );
});
