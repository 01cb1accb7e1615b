/**
 * The terminal-safety boundary: text that furfly did not write itself (model output, MCP server
 * names, tool names, descriptions and results, server stderr, config values, commands in permission
 * questions, error messages quoting any of these) passes through here before it reaches a terminal.
 *
 * A terminal obeys some characters instead of showing them: ESC starts CSI/OSC sequences (cursor
 * moves, clear screen, window titles, OSC 8 links), CR returns to the start of the line so later text
 * overwrites earlier text, 8-bit C1 codes (U+009B is CSI on its own) do the same as ESC on some
 * terminals, and bidirectional overrides reorder what is shown. Invisible format characters hide
 * text. Each such character is replaced by a visible escape (`\x1b`, `\r`, `\u202e`), so what the
 * person reads is what is there: a command cannot redraw itself as a harmless one.
 *
 * Two forms: `terminalLine` for a value shown inside one line (a name, a command in a status line),
 * where a newline or tab would break the layout or forge a line, and `terminalText` for a block that
 * is meant to span lines (model text, a tool result), which keeps newline and tab.
 *
 * Backslashes are left alone, so plain text is unchanged and sanitising twice changes nothing more;
 * the price is that a literal `\x1b` typed as four characters looks like an escaped ESC (both are
 * harmless on screen).
 */

/**
 * Characters a terminal may obey rather than show, or that show nothing: Cc (C0, DEL, C1), Cf
 * (bidirectional marks, overrides and isolates, zero-width space, soft hyphen, BOM, tag characters,
 * ...), the Unicode line and paragraph separators, and lone surrogates (which reach the terminal as
 * U+FFFD and would hide what they were). The first alternative is an emoji tag sequence (the flags of
 * England, Scotland, Wales): kept whole, because its tag characters are part of a visible emoji.
 */
const UNSAFE = /(\u{1F3F4}[\u{E0020}-\u{E007E}]{1,32}\u{E007F})|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** Zero-width joiner and non-joiner build emoji sequences and shape Indic and Persian script: kept. */
const JOINERS = new Set(['\u200c', '\u200d']);

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible escape for one code point: `\r`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function visibleEscape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** How many of the layout characters a text keeps: none (one line) or newline and tab (a block). */
export type Layout = 'line' | 'block';

/**
 * The one pass every form below is built on: each unsafe character is replaced by `spell(char)`;
 * the zero-width joiners, emoji tag sequences and, for a block, newline and tab are kept. Exported
 * for formats that escape in their own syntax (JSON `\uXXXX`, XML `&#xNN;`).
 */
export function replaceUnsafe(text: string, layout: Layout, spell: (char: string) => string): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (char: string, tagSequence: string | undefined) =>
    tagSequence !== undefined || JOINERS.has(char) || (layout === 'block' && (char === '\n' || char === '\t'))
      ? char
      : spell(char),
  );
}

/** For a value shown within one line: every unsafe character, newline and tab included, is escaped. */
export function terminalLine(text: string): string {
  return replaceUnsafe(text, 'line', visibleEscape);
}

/** For a block meant to span lines: like `terminalLine`, but newline and tab stay as they are. */
export function terminalText(text: string): string {
  return replaceUnsafe(text, 'block', visibleEscape);
}

/**
 * For a multi-line block of someone else's text (a server's log message) shown after a label on one
 * line: like `terminalText`, and every line after the first starts with `continuation`, so no line of
 * it can stand on its own and pass for one of furfly's (`furfly: …`, `mcp: other [error] …`).
 */
export function attributedBlock(text: string, continuation = '  | '): string {
  return terminalText(text).replace(/\n/g, `\n${continuation}`);
}

/**
 * For a block of someone else's text shown on lines of its own (a tool result or resource text that
 * `furfly mcp` prints, prompt messages): like `terminalText`, and every line, the first too, starts
 * with `indent`. furfly's own lines start at the margin, so no line of the block can pass for one.
 */
export function indentedBlock(text: string, indent = '  '): string {
  return `${indent}${terminalText(text).replace(/\n/g, `\n${indent}`)}`;
}

/**
 * JSON for output that may be read on a terminal (`--json`, `--output-format json`, JSON reports).
 * `JSON.stringify` escapes C0 controls and lone surrogates but leaves DEL, C1 controls, bidirectional
 * overrides and other invisible format characters raw; these become `\uXXXX` escapes too. The
 * document parses to exactly the same value: only the spelling of those characters changes.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  // A value JSON cannot represent (undefined, a function) is written as null.
  const json = JSON.stringify(value, null, indent) ?? 'null';
  // Outside strings JSON holds only ASCII punctuation and whitespace (newline and tab, kept here).
  return replaceUnsafe(json, 'block', jsonEscape);
}

function jsonEscape(char: string): string {
  let out = '';
  // A character beyond the BMP is written as its two UTF-16 halves, as JSON requires.
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `terminalText` for text that arrives in pieces (a model's streamed answer). A piece may end between
 * the two halves of a surrogate pair (an emoji) or inside an emoji tag sequence; sanitised alone,
 * each part would be shown as escapes. Such an unfinished end is held back until the next piece, so
 * the pieces together show exactly what `terminalText` shows for the whole.
 */
export interface TextStreamSanitizer {
  /** The safe text of this piece (a held-back half surrogate comes out with the next piece). */
  write(piece: string): string;
  /** What was held back, made safe: call at the end of the stream. */
  end(): string;
}

/** The start of an emoji tag sequence (see UNSAFE) that the next piece may still complete. */
const UNFINISHED_TAG_SEQUENCE = /\u{1F3F4}[\u{E0020}-\u{E007E}]{0,32}$/u;

export function textStreamSanitizer(): TextStreamSanitizer {
  let held = '';
  return {
    write(piece) {
      const text = held + piece;
      let cut = text.length;
      const last = text.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
      const flag = UNFINISHED_TAG_SEQUENCE.exec(text.slice(0, cut));
      if (flag) cut = flag.index;
      held = text.slice(cut);
      return terminalText(text.slice(0, cut));
    },
    end() {
      const rest = held;
      held = '';
      return terminalText(rest);
    },
  };
}
