/**
 * The glob matcher furfly used before glob-pattern.ts: a translation of the glob into a JavaScript
 * RegExp. Kept for tests only, as the reference the linear matcher must agree with (see
 * glob-pattern.test.ts). Never use it on untrusted globs: the RegExp backtracks, so a pattern with many
 * `*` takes exponential time.
 */

const REGEX_SPECIAL = new Set(['.', '+', '^', '$', '(', ')', '|', '{', '}', '[', ']', '\\', '/', '*', '?']);

function escapeChar(ch: string): string {
  return REGEX_SPECIAL.has(ch) ? `\\${ch}` : ch;
}

/** Translates glob syntax between `start` and the end (or a closing `}`/`,` when inside braces). */
class GlobTranslator {
  private pos = 0;

  constructor(private readonly glob: string) {}

  translate(): string {
    const body = this.sequence(false);
    if (this.pos < this.glob.length) {
      // A stray `}` or `,` at top level is a literal.
      return body + this.rest();
    }
    return body;
  }

  private rest(): string {
    const tail = this.glob.slice(this.pos);
    this.pos = this.glob.length;
    return Array.from(tail, escapeChar).join('');
  }

  private sequence(inBraces: boolean): string {
    let out = '';
    const g = this.glob;
    while (this.pos < g.length) {
      const ch = g[this.pos]!;
      if (inBraces && (ch === ',' || ch === '}')) return out;
      if (ch === '\\' && this.pos + 1 < g.length) {
        out += escapeChar(g[this.pos + 1]!);
        this.pos += 2;
      } else if (ch === '*') {
        out += this.star();
      } else if (ch === '?') {
        out += '[^/]';
        this.pos++;
      } else if (ch === '[') {
        out += this.charClass();
      } else if (ch === '{') {
        out += this.braces();
      } else {
        out += escapeChar(ch);
        this.pos++;
      }
    }
    return out;
  }

  private star(): string {
    const g = this.glob;
    const start = this.pos;
    while (g[this.pos] === '*') this.pos++;
    const count = this.pos - start;
    const atSegmentStart = start === 0 || g[start - 1] === '/';
    const atSegmentEnd = this.pos === g.length || g[this.pos] === '/';
    if (count >= 2 && atSegmentStart && atSegmentEnd) {
      if (g[this.pos] === '/') {
        // `**/` : zero or more whole segments, each followed by a slash.
        this.pos++;
        return '(?:[^/]*/)*';
      }
      // Trailing `**`: everything below (including nothing after a preceding slash).
      return '.*';
    }
    return '[^/]*';
  }

  private charClass(): string {
    const g = this.glob;
    let i = this.pos + 1;
    let negate = false;
    if (g[i] === '!' || g[i] === '^') {
      negate = true;
      i++;
    }
    let body = '';
    let first = true;
    while (i < g.length && (g[i] !== ']' || first)) {
      const ch = g[i]!;
      if (ch === '\\' && i + 1 < g.length) {
        body += `\\${g[i + 1]}`;
        i += 2;
      } else {
        // Inside a class only these need escaping for the RegExp engine.
        body += ch === '\\' || ch === ']' || ch === '[' || ch === '^' ? `\\${ch}` : ch;
        i++;
      }
      first = false;
    }
    if (i >= g.length) {
      // No closing bracket: the `[` is a literal.
      this.pos++;
      return '\\[';
    }
    this.pos = i + 1;
    // A class never matches the path separator, negated or not.
    return negate ? `[^/${body}]` : `(?:(?!/)[${body}])`;
  }

  private braces(): string {
    const save = this.pos;
    this.pos++;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence(true));
      const ch = this.glob[this.pos];
      if (ch === ',') {
        this.pos++;
        continue;
      }
      if (ch === '}') {
        this.pos++;
        return `(?:${alternatives.join('|')})`;
      }
      // Unterminated brace: treat the `{` literally and carry on after it.
      this.pos = save + 1;
      return '\\{';
    }
  }
}

/** Compiles a glob into an anchored RegExp over `/`-separated paths (or tool names). */
export function globToRegExp(glob: string, options: { caseInsensitive?: boolean } = {}): RegExp {
  const source = new GlobTranslator(glob).translate();
  return new RegExp(`^${source}$`, options.caseInsensitive ? 'i' : '');
}
