/**
 * A small, forgiving parser for bash command lines, good enough to find every simple command a line
 * would run: it understands quoting (so `echo "rm -rf /"` is one echo), `;` `&&` `||` `|` `&` and
 * newlines, subshells `( )`, brace groups, `$( )` and backtick substitutions (also inside double
 * quotes), process substitution `<( )` `>( )`, redirections and here-documents, comments.
 *
 * Substitutions hidden inside `${x:-$(...)}`, `$(( $(...) ))` and unquoted here-document bodies are
 * found too, and `$'...'` strings are decoded (`$'\x72m'` is `rm`).
 *
 * It does not expand variables, globs or aliases: `$X` stays the literal text `$X`. What it cannot
 * parse (an unterminated quote or parenthesis) is reported in `problems`, so the caller can refuse to
 * trust the result.
 */

export interface Word {
  /** The word after quote removal; substitutions are left as their source text. */
  text: string;
  /** True when the word starts with an unquoted `NAME=` (a variable assignment before a command). */
  assignment: boolean;
  /** Command and process substitutions inside the word, parsed. */
  substitutions: Script[];
  /** The word as written, quotes included, so callers can tell `rm` from `$'\x72m'` or `{rm,-rf,y}`. */
  raw: string;
}

export interface Redirect {
  op: string;
  target: Word;
  /** For `<<` and `<<-`: the body text, which becomes the command's stdin (`bash <<EOF` runs it). */
  heredocBody?: string;
}

export interface SimpleCommand {
  kind: 'command';
  words: Word[];
  redirects: Redirect[];
}

export interface Subshell {
  kind: 'subshell';
  body: Script;
  redirects: Redirect[];
}

export type Stage = SimpleCommand | Subshell;

/** Commands connected by `|`; separated from the next pipeline by `;`, `&&`, `||`, `&` or a newline. */
export interface Pipeline {
  stages: Stage[];
}

export interface Script {
  pipelines: Pipeline[];
  problems: string[];
}

const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const REDIRECT = /^(?:\d+|&)?(?:>>|>\||>&|&>>|&>|<<<|<<-|<<|<&|<>|>|<)/;
const MAX_DEPTH = 20;

export function parseShell(source: string): Script {
  const parser = new ShellParser(source, 0);
  const script = parser.script(undefined);
  return script;
}

class ShellParser {
  pos = 0;
  private readonly problems: string[] = [];
  private pendingHeredocs: { delimiter: string; stripTabs: boolean; expands: boolean; redirect: Redirect }[] =
    [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  /** Parses until `terminator` (`)` for subshells and `$(`) or the end of input. */
  script(terminator: ')' | undefined): Script {
    const pipelines: Pipeline[] = [];
    let stages: Stage[] = [];
    let current: SimpleCommand = newCommand();

    const endStage = () => {
      if (current.words.length > 0 || current.redirects.length > 0) stages.push(current);
      current = newCommand();
    };
    const endPipeline = () => {
      endStage();
      if (stages.length > 0) pipelines.push({ stages });
      stages = [];
    };

    const src = this.src;
    while (this.pos < src.length) {
      const ch = src[this.pos]!;
      if (ch === ' ' || ch === '\t') {
        this.pos++;
      } else if (ch === '\\' && src[this.pos + 1] === '\n') {
        this.pos += 2;
      } else if (ch === '#') {
        while (this.pos < src.length && src[this.pos] !== '\n') this.pos++;
      } else if (ch === '\n') {
        this.pos++;
        endPipeline();
        this.skipHeredocBodies();
      } else if (ch === ')' && terminator === ')') {
        this.pos++;
        endPipeline();
        return { pipelines, problems: this.problems };
      } else if (ch === ')') {
        this.problems.push(`unexpected ')' at offset ${this.pos}`);
        this.pos++;
      } else if (src.startsWith('&&', this.pos) || src.startsWith('||', this.pos)) {
        this.pos += 2;
        endPipeline();
      } else if (src.startsWith('|&', this.pos)) {
        this.pos += 2;
        endStage();
      } else if (ch === '|') {
        this.pos++;
        endStage();
      } else if (ch === ';' || (ch === '&' && src[this.pos + 1] !== '>')) {
        this.pos++;
        // `;;` ends a case branch; treat it like `;`.
        if (src[this.pos] === ';') this.pos++;
        endPipeline();
      } else if ((ch === '<' || ch === '>') && src[this.pos + 1] === '(') {
        current.words.push(this.word());
      } else if (REDIRECT.test(src.slice(this.pos, this.pos + 5))) {
        // Digits reach here only at the start of a token (a word would have consumed them), so `2>x` is a redirect.
        this.redirect(current);
      } else if (ch === '(') {
        this.pos++;
        if (current.words.length > 0) {
          // `name() { ...; }` defines a function; the body is parsed as ordinary commands.
          if (src[this.pos] === ')') {
            this.pos++;
            current = newCommand();
            continue;
          }
        }
        const body = this.nested(')');
        endStage();
        stages.push({ kind: 'subshell', body, redirects: [] });
      } else {
        current.words.push(this.word());
      }
    }
    if (terminator) this.problems.push(`missing '${terminator}'`);
    endPipeline();
    return { pipelines, problems: this.problems };
  }

  private redirect(into: SimpleCommand): void {
    const match = REDIRECT.exec(this.src.slice(this.pos, this.pos + 5))!;
    const op = match[0].replace(/^\d+/, '');
    this.pos += match[0].length;
    while (this.src[this.pos] === ' ' || this.src[this.pos] === '\t') this.pos++;
    const target = this.pos < this.src.length && !META.has(this.src[this.pos]!) ? this.word() : emptyWord();
    const redirect: Redirect = { op, target };
    if (op === '<<' || op === '<<-') {
      // A quoted delimiter (`<<'EOF'`, `<<\EOF`) makes the body literal; otherwise `$( )` in it runs.
      const expands = !/['"\\]/.test(target.raw);
      this.pendingHeredocs.push({ delimiter: target.text, stripTabs: op === '<<-', expands, redirect });
    }
    into.redirects.push(redirect);
  }

  /**
   * Here-document bodies are data for the command, not commands of this script: read them up to their
   * delimiter line and keep them on the redirect. In an unquoted body, substitutions still run, so they
   * are parsed like those in a double-quoted string.
   */
  private skipHeredocBodies(): void {
    for (const { delimiter, stripTabs, expands, redirect } of this.pendingHeredocs) {
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= this.src.length) {
          this.problems.push(`here-document '${delimiter}' is not terminated`);
          break;
        }
        let end = this.src.indexOf('\n', this.pos);
        if (end === -1) end = this.src.length;
        let line = this.src.slice(this.pos, end);
        if (stripTabs) line = line.replace(/^\t+/, '');
        this.pos = Math.min(end + 1, this.src.length);
        if (line === delimiter) break;
        lines.push(line);
      }
      const body = lines.join('\n');
      redirect.heredocBody = body;
      if (expands) redirect.target.substitutions.push(...this.expansionsIn(body));
    }
    this.pendingHeredocs = [];
  }

  /** The substitutions in text that is expanded but not split into commands (a here-document body). */
  private expansionsIn(text: string): Script[] {
    const substitutions: Script[] = [];
    if (this.depth >= MAX_DEPTH) {
      this.problems.push('substitutions nested too deeply');
      return substitutions;
    }
    const inner = new ShellParser(text, this.depth + 1);
    while (inner.pos < text.length) {
      const ch = text[inner.pos]!;
      if (ch === '\\') inner.pos += 2;
      else if (ch === '$' || ch === '`') inner.expansion(substitutions) ?? inner.pos++;
      else inner.pos++;
    }
    this.problems.push(...inner.problems);
    return substitutions;
  }

  /**
   * At `$(`, `$((`, `${` or a backtick: consumes the expansion, records the commands it runs and
   * returns the text to keep; undefined when the position starts none of them.
   */
  private expansion(substitutions: Script[]): string | undefined {
    const src = this.src;
    const ch = src[this.pos];
    if (ch === '$' && src.startsWith('$((', this.pos)) return this.arithmetic(substitutions);
    if (ch === '$' && src[this.pos + 1] === '(') {
      this.pos += 2;
      substitutions.push(this.nested(')'));
      return '$(…)';
    }
    if (ch === '$' && src[this.pos + 1] === '{') return this.braced(substitutions);
    if (ch === '`') {
      substitutions.push(this.backtick());
      return '`…`';
    }
    return undefined;
  }

  private nested(terminator: ')'): Script {
    if (this.depth >= MAX_DEPTH) {
      this.problems.push('substitutions nested too deeply');
      this.pos = this.src.length;
      return { pipelines: [], problems: [] };
    }
    const inner = new ShellParser(this.src, this.depth + 1);
    inner.pos = this.pos;
    const script = inner.script(terminator);
    this.pos = inner.pos;
    this.problems.push(...script.problems);
    return { pipelines: script.pipelines, problems: [] };
  }

  private backtick(): Script {
    // Inside backticks, `\`` is a literal backtick; the content is parsed as its own script.
    let content = '';
    this.pos++;
    while (this.pos < this.src.length && this.src[this.pos] !== '`') {
      if (this.src[this.pos] === '\\' && this.pos + 1 < this.src.length) {
        content += this.src[this.pos + 1];
        this.pos += 2;
      } else {
        content += this.src[this.pos++];
      }
    }
    if (this.pos >= this.src.length) this.problems.push('missing closing backtick');
    else this.pos++;
    const script =
      this.depth >= MAX_DEPTH ? { pipelines: [], problems: ['too deep'] } : parseAt(content, this.depth + 1);
    this.problems.push(...script.problems);
    return { pipelines: script.pipelines, problems: [] };
  }

  /** Reads one word, removing quotes and collecting substitutions. */
  private word(): Word {
    const src = this.src;
    const start = this.pos;
    let text = '';
    const substitutions: Script[] = [];

    while (this.pos < src.length) {
      const ch = src[this.pos]!;
      if ((ch === '<' || ch === '>') && src[this.pos + 1] === '(' && this.pos === start) {
        this.pos += 2;
        substitutions.push(this.nested(')'));
        text += `${ch}(…)`;
        continue;
      }
      if (META.has(ch)) break;
      if (ch === '\\') {
        if (src[this.pos + 1] === '\n') this.pos += 2;
        else {
          text += src[this.pos + 1] ?? '';
          this.pos += 2;
        }
      } else if (ch === "'") {
        const end = src.indexOf("'", this.pos + 1);
        if (end === -1) {
          this.problems.push('missing closing single quote');
          text += src.slice(this.pos + 1);
          this.pos = src.length;
        } else {
          text += src.slice(this.pos + 1, end);
          this.pos = end + 1;
        }
      } else if (ch === '$' && src[this.pos + 1] === "'") {
        const end = findAnsiCEnd(src, this.pos + 2);
        text += decodeAnsiC(src.slice(this.pos + 2, end === -1 ? src.length : end));
        if (end === -1) this.problems.push('missing closing single quote');
        this.pos = end === -1 ? src.length : end + 1;
      } else if (ch === '"') {
        text += this.doubleQuoted(substitutions);
      } else {
        const expanded = ch === '$' || ch === '`' ? this.expansion(substitutions) : undefined;
        if (expanded !== undefined) text += expanded;
        else {
          text += ch;
          this.pos++;
        }
      }
    }
    if (this.pos === start) {
      // Never stall on a character no branch consumed; keep it as text.
      text += src[this.pos++] ?? '';
    }
    const raw = src.slice(start, this.pos);
    return { text, assignment: /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(raw), substitutions, raw };
  }

  private doubleQuoted(substitutions: Script[]): string {
    const src = this.src;
    let text = '';
    this.pos++;
    while (this.pos < src.length && src[this.pos] !== '"') {
      const ch = src[this.pos]!;
      if (ch === '\\' && this.pos + 1 < src.length) {
        const next = src[this.pos + 1]!;
        text += '"\\$`\n'.includes(next) ? (next === '\n' ? '' : next) : `\\${next}`;
        this.pos += 2;
      } else {
        const expanded = ch === '$' || ch === '`' ? this.expansion(substitutions) : undefined;
        if (expanded !== undefined) text += expanded;
        else {
          text += ch;
          this.pos++;
        }
      }
    }
    if (this.pos >= src.length) this.problems.push('missing closing double quote');
    else this.pos++;
    return text;
  }

  /**
   * `${...}` is kept as its source text, but the commands in it run (`${x:-$(rm -rf y)}`), so quotes
   * and substitutions inside are parsed.
   */
  private braced(substitutions: Script[]): string {
    const src = this.src;
    const start = this.pos;
    this.pos += 2;
    while (this.pos < src.length) {
      const ch = src[this.pos]!;
      if (ch === '}') {
        this.pos++;
        return src.slice(start, this.pos);
      }
      if (ch === '\\') this.pos += 2;
      else if (ch === "'") {
        const end = src.indexOf("'", this.pos + 1);
        this.pos = end === -1 ? src.length : end + 1;
      } else if (ch === '"') this.doubleQuoted(substitutions);
      else if (this.expansion(substitutions) === undefined) this.pos++;
    }
    this.problems.push("missing '}'");
    return src.slice(start);
  }

  /** `$(( ... ))` is arithmetic, not a command, though `$( )` and backticks inside it still run. */
  private arithmetic(substitutions: Script[]): string {
    const src = this.src;
    const start = this.pos;
    this.pos += 3;
    let depth = 0;
    while (this.pos < src.length) {
      const ch = src[this.pos]!;
      if (ch === '(') {
        depth++;
        this.pos++;
      } else if (ch === ')') {
        this.pos++;
        if (depth > 0) depth--;
        else if (src[this.pos] === ')') {
          this.pos++;
          return src.slice(start, this.pos);
        } else {
          this.problems.push("missing '))'");
          return src.slice(start, this.pos);
        }
      } else if (ch === '\\') this.pos += 2;
      else if (this.expansion(substitutions) === undefined) this.pos++;
    }
    this.problems.push("missing '))'");
    return src.slice(start);
  }
}

/** Decodes the escapes bash understands in `$'...'`, so the text is what the command really sees. */
function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  };
  return body.replace(
    /\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))/gs,
    (whole, hex, u4, u8, octal, control, other) => {
      const code = hex ?? u4 ?? u8;
      if (code !== undefined) return safeCodePoint(Number.parseInt(code, 16));
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (control !== undefined) return String.fromCharCode(control.charCodeAt(0) & 0x1f);
      return simple[other as string] ?? whole;
    },
  );
}

function safeCodePoint(code: number): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : '';
}

function parseAt(source: string, depth: number): Script {
  return new ShellParser(source, depth).script(undefined);
}

function findAnsiCEnd(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    if (src[i] === '\\') i++;
    else if (src[i] === "'") return i;
  }
  return -1;
}

function newCommand(): SimpleCommand {
  return { kind: 'command', words: [], redirects: [] };
}

function emptyWord(): Word {
  return { text: '', assignment: false, substitutions: [], raw: '' };
}
