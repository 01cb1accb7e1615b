/**
 * The glob matcher shared by the `glob` and `grep` tools and by the permission rules (which match tool
 * names). Node 20 has no `fs.glob`, and the three users need the exact same semantics, so they live in
 * one place.
 *
 * Supported syntax:
 * - `*`      any run of characters except `/`
 * - `?`      one character except `/`
 * - `**`     as a whole path segment (`**`, `a/**`, `** /b`): zero or more whole segments
 * - `{a,b}`  alternatives, nestable, each alternative may contain any glob syntax
 * - `[abc]`, `[a-z]`, `[!x]` / `[^x]` character classes (never match `/`)
 * - `\x`     the literal character x
 * Dotfiles are not special: `*` matches `.env`. Callers that must skip `.git` do so while walking.
 * A `{` without its `}` and a `[` without its `]` are literal characters.
 *
 * Linear time: a glob is usually model-chosen, and translated to a JavaScript RegExp (which
 * backtracks) a pattern such as `*a*a*a*a*a*a*a*b` takes exponential time on a long name and blocks
 * the event loop, past every deadline and Ctrl-C. So the glob is compiled to a small automaton
 * (Thompson's construction) and run over the candidate keeping the set of live states: the cost is at
 * most (candidate length) × (glob length), whatever the pattern.
 */

export interface GlobMatcher {
  /** True when the whole candidate matches. */
  test(candidate: string): boolean;
}

/** Braces nested deeper than this are refused (the parser recurses once per level). */
export const GLOB_MAX_BRACE_DEPTH = 32;

/** A glob that cannot be compiled: braces nested too deep, or a class a RegExp rejects (`[z-a]`). */
export class GlobSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobSyntaxError';
  }
}

type CharTest = (ch: string) => boolean;

/** One automaton state: at most one character edge, and any number of empty (epsilon) edges. */
interface State {
  test?: CharTest;
  to: number;
  empty: number[];
}

const notSlash: CharTest = (ch) => ch !== '/';
const anything: CharTest = () => true;

/**
 * Builds the automaton while parsing. Every parse step takes a fresh state (no edges yet) and returns
 * a fresh state, so steps can be chained without bookkeeping.
 */
class GlobCompiler {
  readonly states: State[] = [];
  private pos = 0;
  private depth = 0;

  constructor(private readonly glob: string) {}

  compile(): { start: number; accept: number } {
    const start = this.fresh();
    const accept = this.sequence(start, false);
    return { start, accept };
  }

  private fresh(): number {
    this.states.push({ to: -1, empty: [] });
    return this.states.length - 1;
  }

  private edge(from: number, test: CharTest): number {
    const to = this.fresh();
    this.states[from]!.test = test;
    this.states[from]!.to = to;
    return to;
  }

  /** Parses up to the end (or to a `,` or `}` when inside braces). */
  private sequence(from: number, inBraces: boolean): number {
    const g = this.glob;
    let current = from;
    while (this.pos < g.length) {
      const ch = g[this.pos]!;
      if (inBraces && (ch === ',' || ch === '}')) return current;
      if (ch === '\\' && this.pos + 1 < g.length) {
        current = this.edge(current, literal(g[this.pos + 1]!));
        this.pos += 2;
      } else if (ch === '*') {
        current = this.star(current);
      } else if (ch === '?') {
        current = this.edge(current, notSlash);
        this.pos++;
      } else if (ch === '[') {
        current = this.charClass(current);
      } else if (ch === '{') {
        current = this.braces(current);
      } else {
        current = this.edge(current, literal(ch));
        this.pos++;
      }
    }
    return current;
  }

  private star(from: number): number {
    const g = this.glob;
    const start = this.pos;
    while (g[this.pos] === '*') this.pos++;
    const count = this.pos - start;
    const atSegmentStart = start === 0 || g[start - 1] === '/';
    const atSegmentEnd = this.pos === g.length || g[this.pos] === '/';
    const loop = (test: CharTest): number => {
      // A state that eats matching characters in place, then moves on without consuming.
      const state = this.states[from]!;
      state.test = test;
      state.to = from;
      const next = this.fresh();
      state.empty.push(next);
      return next;
    };
    if (count >= 2 && atSegmentStart && atSegmentEnd) {
      if (g[this.pos] === '/') {
        // `**/`: zero or more whole segments, each followed by a slash.
        this.pos++;
        const segment = this.fresh();
        this.states[from]!.empty.push(segment);
        const state = this.states[segment]!;
        state.test = notSlash;
        state.to = segment;
        const slash = this.fresh();
        state.empty.push(slash);
        this.states[slash]!.test = literal('/');
        this.states[slash]!.to = from;
        const next = this.fresh();
        this.states[from]!.empty.push(next);
        return next;
      }
      // Trailing `**`: everything below (including nothing after a preceding slash).
      return loop(anything);
    }
    return loop(notSlash);
  }

  private charClass(from: number): number {
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
        // Inside a RegExp class only these need escaping.
        body += ch === '\\' || ch === ']' || ch === '[' || ch === '^' ? `\\${ch}` : ch;
        i++;
      }
      first = false;
    }
    if (i >= g.length) {
      // No closing bracket: the `[` is a literal.
      this.pos++;
      return this.edge(from, literal('['));
    }
    this.pos = i + 1;
    // One character against one class: a RegExp is fine here (nothing to backtrack over), and it keeps
    // ranges and escapes exactly as a RegExp class reads them. A class never matches the separator.
    let regex: RegExp;
    try {
      regex = new RegExp(negate ? `^[^/${body}]$` : `^(?!/)[${body}]$`);
    } catch (error) {
      throw new GlobSyntaxError(`invalid character class in glob: ${(error as Error).message}`);
    }
    return this.edge(from, (ch) => regex.test(ch));
  }

  private braces(from: number): number {
    const save = this.pos;
    const savedStates = this.states.length;
    const savedEmpty = this.states[from]!.empty.length;
    if (++this.depth > GLOB_MAX_BRACE_DEPTH) {
      throw new GlobSyntaxError(`the glob nests { } more than ${GLOB_MAX_BRACE_DEPTH} levels deep`);
    }
    this.pos++;
    const ends: number[] = [];
    try {
      for (;;) {
        const start = this.fresh();
        this.states[from]!.empty.push(start);
        ends.push(this.sequence(start, true));
        const ch = this.glob[this.pos];
        if (ch === ',') {
          this.pos++;
          continue;
        }
        if (ch === '}') {
          this.pos++;
          const join = this.fresh();
          for (const end of ends) this.states[end]!.empty.push(join);
          return join;
        }
        // Unterminated: forget what the alternatives built; the `{` is a literal and parsing goes on after it.
        this.states.length = savedStates;
        this.states[from]!.empty.length = savedEmpty;
        this.pos = save + 1;
        return this.edge(from, literal('{'));
      }
    } finally {
      this.depth--;
    }
  }
}

function literal(expected: string): CharTest {
  return (ch) => ch === expected;
}

class AutomatonMatcher implements GlobMatcher {
  private readonly seen: Int32Array;
  private generation = 0;

  constructor(
    private readonly states: readonly State[],
    private readonly start: number,
    private readonly accept: number,
  ) {
    this.seen = new Int32Array(states.length);
  }

  test(candidate: string): boolean {
    let live = this.closure([this.start]);
    for (let i = 0; i < candidate.length && live.length > 0; i++) {
      const ch = candidate[i]!;
      const next: number[] = [];
      for (const index of live) {
        const state = this.states[index]!;
        if (state.test?.(ch)) next.push(state.to);
      }
      live = this.closure(next);
    }
    return live.includes(this.accept);
  }

  /** The states reachable through empty edges, each once (an explicit stack: no recursion). */
  private closure(from: readonly number[]): number[] {
    const mark = ++this.generation;
    const out: number[] = [];
    const stack = [...from];
    while (stack.length > 0) {
      const index = stack.pop()!;
      if (this.seen[index] === mark) continue;
      this.seen[index] = mark;
      out.push(index);
      for (const next of this.states[index]!.empty) stack.push(next);
    }
    return out;
  }
}

/** Compiles a glob over `/`-separated paths (or tool names). Throws GlobSyntaxError for a glob it cannot use. */
export function compileGlob(glob: string): GlobMatcher {
  const compiler = new GlobCompiler(glob);
  const { start, accept } = compiler.compile();
  return new AutomatonMatcher(compiler.states, start, accept);
}

/** Convenience for one-off matches; compile with `compileGlob` when matching many names. */
export function globMatches(glob: string, candidate: string): boolean {
  return compileGlob(glob).test(candidate);
}
