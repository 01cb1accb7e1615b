/**
 * What bash makes of one word of the syntax tree, decided statically: the text after quote removal
 * when it is fully known, or "dynamic" when an expansion (`$X`, `$(…)`, `$((…))`, `<(…)`, brace
 * expansion, `~user`) decides it at run time.
 *
 * Dynamic parts are kept in `text` as the placeholder DYNAMIC, so callers can still match what is
 * known around them (`/proc/$PPID/environ` is `/proc/\0/environ`).
 */
import type { SyntaxNode } from './bash-grammar.js';

/** Stands for text only known at run time. */
export const DYNAMIC = '\u0000';

export interface ShellWord {
  /** After quote removal; DYNAMIC where an expansion decides. */
  text: string;
  /** No part of the word is decided at run time. */
  isStatic: boolean;
  /** Unquoted `*`, `?` or `[`: the shell may replace the word with file names. */
  glob: boolean;
  /** A `$'…'` string took part (it can spell any name: `$'\x72m'` is rm). */
  ansiC: boolean;
  /** The word as written. */
  raw: string;
}

export interface WordContext {
  /** What `~` and `$HOME` stand for. */
  homeDir: string;
}

export function literalWord(text: string): ShellWord {
  return { text, isStatic: true, glob: false, ansiC: false, raw: text };
}

/** Unquoted brace expansion (`{a,b}`, `{1..3}`) in a word as written. */
const BRACE_EXPANSION = /\{[^{}'"]*(?:,|\.\.)[^{}'"]*\}/;

export function resolveWord(node: SyntaxNode, context: WordContext): ShellWord {
  const out: ShellWord = { text: '', isStatic: true, glob: false, ansiC: false, raw: node.text };
  append(node, out, context, true);
  return out;
}

function dynamic(out: ShellWord): void {
  out.text += DYNAMIC;
  out.isStatic = false;
}

function append(node: SyntaxNode, out: ShellWord, context: WordContext, wordStart: boolean): void {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name') {
        for (const child of node.children) append(child, out, context, wordStart);
        return;
      }
      appendUnquoted(node.text, out, context, wordStart);
      return;
    case 'number':
    case 'variable_name':
      out.text += node.text;
      return;
    case 'raw_string':
      out.text += node.text.slice(1, -1);
      return;
    case 'ansi_c_string':
      out.ansiC = true;
      out.text += decodeAnsiC(node.text.slice(2, -1));
      return;
    case 'string':
      for (const child of node.children) {
        if (child.type === 'string_content') out.text += unescapeDoubleQuoted(child.text);
        else if (child.type === '"') continue;
        else if (isHomeExpansion(child)) out.text += context.homeDir;
        else dynamic(out);
      }
      return;
    case 'concatenation':
      node.children.forEach((child, i) => {
        append(child, out, context, wordStart && i === 0);
      });
      return;
    case 'simple_expansion':
    case 'expansion':
      if (isHomeExpansion(node)) out.text += context.homeDir;
      else dynamic(out);
      return;
    default:
      // command_substitution, process_substitution, arithmetic_expansion, translated_string
      // (`$"…"` can be replaced by a message catalogue), brace_expression and anything new.
      dynamic(out);
  }
}

/** `$HOME` and `${HOME}`: what they stand for is known. */
function isHomeExpansion(node: SyntaxNode): boolean {
  if (node.type !== 'simple_expansion' && node.type !== 'expansion') return false;
  const named = node.children.filter((c) => c.named);
  return named.length === 1 && named[0]!.type === 'variable_name' && named[0]!.text === 'HOME'
    ? node.children.every((c) => c.named || ['$', '${', '}'].includes(c.type))
    : false;
}

function appendUnquoted(text: string, out: ShellWord, context: WordContext, wordStart: boolean): void {
  if (BRACE_EXPANSION.test(text)) {
    out.isStatic = false;
  }
  let i = 0;
  if (wordStart && text.startsWith('~')) {
    const end = text.indexOf('/');
    const user = end === -1 ? text.slice(1) : text.slice(1, end);
    if (user === '') {
      out.text += context.homeDir;
      i = 1;
    } else {
      // `~user`, `~+`, `~-`: another folder, decided at run time.
      dynamic(out);
      i = end === -1 ? text.length : end;
    }
  }
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === '\n') i++;
      else if (next !== undefined) {
        out.text += next;
        i++;
      }
    } else {
      if (ch === '*' || ch === '?' || ch === '[') out.glob = true;
      out.text += ch;
    }
  }
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_whole, ch: string) => (ch === '\n' ? '' : ch));
}

/** Decodes the escapes bash understands in `$'...'`, so the text is what the command really sees. */
export function decodeAnsiC(body: string): string {
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
      if (code !== undefined) {
        const value = Number.parseInt(code, 16);
        return value <= 0x10ffff ? String.fromCodePoint(value) : '';
      }
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (control !== undefined) return String.fromCharCode(control.charCodeAt(0) & 0x1f);
      return simple[other as string] ?? whole;
    },
  );
}

/**
 * True when the shell may turn the word into something that starts with `-` (an option) or into
 * several words: dynamic, or a glob whose first character is a pattern (`*`, `-*`, `[-]rf`).
 */
export function mayBecomeOptions(word: ShellWord): boolean {
  if (!word.isStatic) return true;
  return word.glob && /^[*?[-]/.test(word.text);
}
