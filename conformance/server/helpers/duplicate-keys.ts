/**
 * Duplicate member names in raw JSON text. `JSON.parse` keeps the last of two equal names without a word,
 * so a rule about unique keys (mrtr: `inputRequests` keys MUST be unique) can only be judged on the text
 * as it came over the wire. A small scanner of its own: it walks well-formed JSON, and for every object
 * whose member name path ends with `parent`, returns the names it saw twice. Text that is not JSON gives
 * `[]`: whether it parses is other checks' judgement.
 */

/** The duplicated names of every object found under a member called `parent`, with where it was. */
export function duplicateKeysUnder(text: string, parent: string): string[] {
  const found: string[] = [];
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = at;
    at++; // the opening quote
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (name: string | undefined): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const seen = new Set<string>();
      space();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') throw new Error('not JSON');
        const key = string();
        if (name === parent && seen.has(key)) found.push(key);
        seen.add(key);
        space();
        if (text[at] !== ':') throw new Error('not JSON');
        at++;
        value(key);
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] !== '}') throw new Error('not JSON');
        at++;
        return;
      }
    }
    if (c === '[') {
      at++;
      space();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (;;) {
        value(undefined);
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] !== ']') throw new Error('not JSON');
        at++;
        return;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 64));
    if (!literal) throw new Error('not JSON');
    at += literal[0].length;
  };
  try {
    value(undefined);
    return found;
  } catch {
    return [];
  }
}
