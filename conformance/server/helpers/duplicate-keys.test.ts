/** The raw-text scanner behind mrtr.input-request-keys-unique. */
import { describe, expect, it } from 'vitest';
import { duplicateKeysUnder } from './duplicate-keys.js';

describe('duplicateKeysUnder', () => {
  it('finds a name given twice in an inputRequests object, which JSON.parse would hide', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"},"b":{},"a":{"method":"elicitation/create"}}}}';
    expect(duplicateKeysUnder(text, 'inputRequests')).toEqual(['a']);
  });

  it('ignores repeats elsewhere and unique keys, in any nesting and spacing', () => {
    const text =
      '{ "result" : { "x": 1, "x": [ {"inputRequests": { "a": "\\"a\\"", "b": [1, -2.5e3, true, null] } } ] } }';
    expect(duplicateKeysUnder(text, 'inputRequests')).toEqual([]);
  });

  it('finds repeats in every inputRequests object, escaped names compared decoded', () => {
    const text = '[{"inputRequests":{"k":1,"\\u006b":2}},{"inputRequests":{"z":{},"z":{}}}]';
    expect(duplicateKeysUnder(text, 'inputRequests')).toEqual(['k', 'z']);
  });

  it('gives nothing for text that is not JSON', () => {
    expect(duplicateKeysUnder('{"inputRequests":{"a":1,"a":', 'inputRequests')).toEqual([]);
    expect(duplicateKeysUnder('event: message', 'inputRequests')).toEqual([]);
  });
});
