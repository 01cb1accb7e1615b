/**
 * The model's streamed answer on its way to a terminal or to `-p` stdout. Beside the terminal
 * sanitizer (escapes become visible), one more rule: the model writes whole lines, and a line of its
 * text that starts like one of furfly's own lines (`furfly: permission granted`, `mcp: …`, `  [tool]
 * bash … -> allowed`, `  why furfly asks: …`) would read as furfly's. Such a line gets MODEL_LINE_TAG
 * in front, so what stands at the margin as furfly's is furfly's. Every other line is left exactly as
 * the model wrote it: a plain answer prints unchanged.
 */
import { type TextStreamSanitizer, textStreamSanitizer } from './sanitize.js';

/** Put in front of a model line that starts like one of furfly's. */
export const MODEL_LINE_TAG = '[model] ';

/**
 * How furfly's own lines start (after any indentation), in lower case with one space for any run of
 * white space: its status lines, the MCP lines, tool-call lines and the footer of a permission
 * question (a question without its footer asks nothing).
 */
export const FURFLY_LINE_STARTS: readonly string[] = [
  'furfly: ',
  'mcp: ',
  '[tool] ',
  'why furfly asks: ',
  '[a] allow',
];

/** How a line start compares: no indentation, compatibility forms folded (fullwidth `ｆ`, NBSP), lower case. */
function comparable(lineStart: string): string {
  return lineStart
    .normalize('NFKC')
    .replace(/^[\s\p{Zs}]+/u, '')
    .replace(/[\s\p{Zs}]+/gu, ' ')
    .toLowerCase();
}

type Verdict = 'furfly-like' | 'plain' | 'undecided';

/** Whether a line that starts with `head` starts like furfly's; `complete` when the line has ended. */
function judge(head: string, complete: boolean): Verdict {
  const text = comparable(head);
  if (FURFLY_LINE_STARTS.some((start) => text.startsWith(start))) return 'furfly-like';
  if (!complete && (text === '' || FURFLY_LINE_STARTS.some((start) => start.startsWith(text)))) {
    return 'undecided';
  }
  return 'plain';
}

/**
 * `textStreamSanitizer` plus the line rule above. The start of a line is held back only while it could
 * still become one of furfly's (at most a few characters, or a run of indentation), then goes out.
 */
export function modelTextStream(): TextStreamSanitizer {
  const safe = textStreamSanitizer();
  let atLineStart = true;
  let held = '';

  const attribute = (text: string, final: boolean): string => {
    let rest = held + text;
    held = '';
    let out = '';
    while (rest !== '') {
      const newline = rest.indexOf('\n');
      const line = newline === -1 ? rest : rest.slice(0, newline + 1);
      if (atLineStart) {
        const verdict = judge(newline === -1 ? line : line.slice(0, -1), newline !== -1 || final);
        if (verdict === 'undecided') {
          held = rest;
          return out;
        }
        if (verdict === 'furfly-like') out += MODEL_LINE_TAG;
      }
      out += line;
      atLineStart = newline !== -1;
      rest = rest.slice(line.length);
    }
    return out;
  };

  return {
    write: (piece) => attribute(safe.write(piece), false),
    end: () => {
      const out = attribute(safe.end(), true);
      // The next response starts on a line of its own (the caller ends an open line).
      atLineStart = true;
      return out;
    },
  };
}
