/**
 * Pasted text kept out of the line editor. Node's readline handles a terminal's input one key at a
 * time: every pasted character is a keypress, echoed on its own, and at the end of each chunk it
 * measures the display width of the whole line so far. A paste arriving in n chunks therefore costs
 * O(n × size): 240 KB took 0.7 s and 4.8 MB took two minutes.
 *
 * So on a terminal a paste never reaches readline. It is stored here, and readline sees a short
 * placeholder (`[paste #1]`) that is replaced by the stored text when the line is submitted. A paste
 * is recognised by the terminal's bracketed-paste markers (enabled by the session), or, on terminals
 * without them, as a chunk of plain text longer than anyone types between two reads; the chunks that
 * follow such a chunk at once belong to the same paste. Both paths are linear in the pasted size.
 *
 * A paste's newlines stay inside the one message (a pasted file is one task, not one task per line).
 */

import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export const BRACKETED_PASTE_ON = '\x1b[?2004h';
export const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** A read of plain text at least this long is a paste: keystrokes arrive a few bytes at a time. */
export const PASTE_CHUNK = 256;
/** A short plain chunk (more than one key) this soon after a paste chunk is the paste's tail. */
const PASTE_TAIL_MS = 15;
// Anything a paste of text cannot contain: escape sequences and control keys (Ctrl-C, Ctrl-D, …).
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

export interface PasteInputOptions {
  /** The clock used to join a paste's tail to it (tests pass a fixed one). */
  now?: () => number;
}

/** A stream between the terminal and readline that swaps pastes for placeholders, and expands them. */
export class PasteInput extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private readonly pastes = new Map<number, string[]>();
  private nextId = 1;
  /** The bracketed paste being received, or the plain-chunk paste that may still continue. */
  private open: { id: number; bracketed: boolean } | undefined;
  private lastPasteAt = Number.NEGATIVE_INFINITY;
  /** The end of a chunk that may be the start of a paste marker cut in two by the read. */
  private pending = '';
  private readonly now: () => number;

  constructor(options: PasteInputOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    this.pending = '';
    this.receive(text);
    done();
  }

  override _flush(done: TransformCallback): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest) this.receive(rest);
    this.open = undefined;
    done();
  }

  /** The line with each placeholder replaced by its paste; pastes that were not used are dropped. */
  expand(line: string): string {
    const expanded = line.replace(/\[paste #(\d+)\]/g, (token, id: string) => {
      const parts = this.pastes.get(Number(id));
      // Terminals send Enter as \r; a pasted text's lines end in \n like a typed message's.
      return parts === undefined ? token : parts.join('').replace(/\r\n?/g, '\n');
    });
    for (const id of [...this.pastes.keys()]) if (id !== this.open?.id) this.pastes.delete(id);
    return expanded;
  }

  /** How many characters are stored (for tests and the size warning). */
  get storedLength(): number {
    let total = 0;
    for (const parts of this.pastes.values()) for (const part of parts) total += part.length;
    return total;
  }

  private receive(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      if (this.open?.bracketed) {
        const end = rest.indexOf(PASTE_END);
        if (end === -1) {
          const keep = partialMarkerLength(rest, PASTE_END);
          this.append(rest.slice(0, rest.length - keep));
          this.pending = rest.slice(rest.length - keep);
          return;
        }
        this.append(rest.slice(0, end));
        this.open = undefined;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      const start = rest.indexOf(PASTE_START);
      if (start === -1) {
        const keep = partialMarkerLength(rest, PASTE_START);
        this.plain(rest.slice(0, rest.length - keep));
        this.pending = rest.slice(rest.length - keep);
        return;
      }
      this.plain(rest.slice(0, start));
      this.startPaste(true);
      rest = rest.slice(start + PASTE_START.length);
    }
  }

  /** Text outside the markers: typed keys go to readline, a large plain read is a paste. */
  private plain(text: string): void {
    if (text === '') return;
    const isPlain = !NOT_PLAIN.test(text);
    // A single character is a keystroke (Enter right after a paste above all), never a paste's tail.
    const continues =
      this.open !== undefined &&
      isPlain &&
      (text.length >= PASTE_CHUNK || (text.length > 1 && this.now() - this.lastPasteAt <= PASTE_TAIL_MS));
    if (continues) {
      this.append(text);
      return;
    }
    this.open = undefined;
    if (isPlain && text.length >= PASTE_CHUNK) {
      this.startPaste(false);
      this.append(text);
      return;
    }
    this.push(Buffer.from(text, 'utf8'));
  }

  private startPaste(bracketed: boolean): void {
    const id = this.nextId++;
    this.pastes.set(id, []);
    this.open = { id, bracketed };
    this.push(Buffer.from(`[paste #${id}]`, 'utf8'));
  }

  private append(text: string): void {
    if (this.open === undefined || text === '') return;
    this.pastes.get(this.open.id)?.push(text);
    this.lastPasteAt = this.now();
  }
}

/** How many characters at the end of `text` could be the start of `marker`. */
function partialMarkerLength(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
