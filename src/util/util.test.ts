import { describe, expect, it } from 'vitest';
import { errorText } from './error-text.js';
import { isObject } from './is-object.js';
import { waitFor } from './wait-for.test-helpers.js';

describe('isObject', () => {
  it('accepts plain objects only', () => {
    expect([{}, { a: 1 }, Object.create(null)].map(isObject)).toEqual([true, true, true]);
    expect([null, undefined, [], [1], 'x', 1, true].map(isObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('errorText', () => {
  it('gives the message of an error, its name when the message is empty, and any other value as text', () => {
    expect(errorText(new TypeError('bad input'))).toBe('bad input');
    expect(errorText(new RangeError())).toBe('RangeError');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(42)).toBe('42');
  });
});

describe('waitFor', () => {
  it('returns the first value that is neither undefined nor false', async () => {
    let calls = 0;
    const value = await waitFor('the third call', () => {
      calls += 1;
      return calls < 3 ? (calls === 1 ? undefined : false) : `call ${calls}`;
    });
    expect(value).toBe('call 3');
  });

  it('accepts async checks, and fails naming what it waited for', async () => {
    await expect(waitFor('something that never comes', async () => false, 50, 5)).rejects.toThrow(
      'timed out waiting for something that never comes',
    );
  });
});
