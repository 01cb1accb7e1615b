/**
 * A push parser for one JSON text, fed in byte chunks as they arrive.
 *
 * Why: the stdio framer used to join a huge line (copy 1), decode it (copy 2) and JSON.parse it
 * (copy 3, the big string inside). Fed chunk by chunk, this parser builds each string value straight
 * from the bytes, so a 50 MiB tool result costs about one copy of itself.
 *
 * The result is exactly `JSON.parse(Buffer.concat(chunks).toString('utf8'))`: invalid UTF-8 becomes
 * U+FFFD the way Buffer decoding does it (WHATWG, one U+FFFD per maximal invalid subpart) and a leading
 * BOM is not stripped (so it is a syntax error, as for JSON.parse).
 *
 * How strings stay cheap:
 * - long runs of plain bytes are located with `indexOf` (native memchr) and checked for raw control
 *   characters with a native regex; only short runs (at most PEEK bytes, e.g. between the escapes of
 *   JSON embedded in a string) are looked at byte by byte in JS;
 * - the bytes are copied into a reused staging buffer (the caller's chunk is not kept) and decoded in
 *   pieces of up to STAGE_MAX bytes: big enough to land in V8's large-object space, which the young
 *   generation GC never copies;
 * - escapes go into the staging buffer as UTF-8 too, so `\"` or `\n` every few bytes does not cut the
 *   string into tiny pieces; only a lone surrogate (which UTF-8 cannot carry) becomes a piece of its own;
 * - pieces are appended with `+`, which makes a V8 rope (no copy), instead of an array `join`, which
 *   would copy everything again while the pieces are still alive.
 *
 * Nesting uses an explicit stack, so depth is bounded by `maxDepth`, not by the call stack.
 */

/** A syntax error with the byte offset (0-based, from the start of the JSON text) where it was found. */
export class JsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at byte ${position}`);
  }
}

export interface IncrementalJsonOptions {
  /** Arrays and objects nested deeper than this are a JsonSyntaxError. Default 10 000. */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 10_000;

/** The staging buffer starts small (most strings are short) and doubles up to this. */
const STAGE_MIN = 16 * 1024;
const STAGE_MAX = 512 * 1024;
/** A run of plain string bytes at least this long is decoded in place, without staging. */
const DIRECT_MIN = STAGE_MAX;
/** Plain string bytes checked and copied in JS before handing the rest of a run to native search. */
const PEEK = 32;
/** Decoded pieces shorter than this are gathered and joined, so a rope never has tiny leaves. */
const PIECE_MIN = 8 * 1024;

// Parser states. "Structural" states (below STRING) are handled byte by byte; the others consume runs.
const VALUE = 0; // a value must come (top level, after ':' or after ',' in an array)
const ARRAY_FIRST = 1; // after '[': a value or ']'
const OBJECT_FIRST = 2; // after '{': a key or '}'
const KEY = 3; // after ',' in an object: a key
const COLON = 4; // after a key
const AFTER = 5; // after a value: ',' or a closing bracket, or only whitespace at the top level
const STRING = 6;
const ESCAPE = 7; // after a backslash in a string
const UNICODE = 8; // inside the four hex digits of \uXXXX
const NUMBER = 9;
const LITERAL = 10; // true, false, null
const FAILED = 11;
const ENDED = 12;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** true, false and null, by their first byte. */
const LITERALS: Record<number, { text: string; value: unknown }> = {};
for (const [text, value] of [
  ['true', true],
  ['false', false],
  ['null', null],
] as const) {
  LITERALS[text.charCodeAt(0)] = { text, value };
}

/** The byte each one-letter escape stands for, indexed by the letter's byte (NOT_SIMPLE: no such escape). */
const NOT_SIMPLE = 0xff;
const SIMPLE_ESCAPES = new Uint8Array(256).fill(NOT_SIMPLE);
for (const [letter, byte] of Object.entries({
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  b: 8,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
})) {
  SIMPLE_ESCAPES[letter.charCodeAt(0)] = byte;
}

const NUMBER_SYNTAX = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const CONTROL_CHARACTER = /[\u0000-\u001f]/;
const OBJECT_PROTOTYPE = Object.prototype;

interface Frame {
  readonly container: unknown[] | Record<string, unknown>;
  readonly isArray: boolean;
  /** The key whose value comes next (objects only). */
  key: string;
}

export class IncrementalJsonParser {
  private readonly maxDepth: number;
  private state = VALUE;
  /** Bytes pushed before the current chunk: positions in errors are offset + index. */
  private offset = 0;
  private readonly stack: Frame[] = [];
  private result: unknown;
  private failure: unknown;

  // Where the next '"' and '\' are in the current chunk (-1: none left, -2: not searched yet).
  private quoteAt = -2;
  private backslashAt = -2;

  // The string being read.
  private stringIsKey = false;
  private stage: Buffer | undefined;
  private stageFill = 0;
  private pieces: string[] = [];
  private piecesLength = 0;
  private rope = '';
  /** A \uD800-\uDBFF escape waiting to see whether a low-surrogate escape follows (-1: none). */
  private pendingHigh = -1;
  private escapeStart = 0;
  private hexValue = 0;
  private hexCount = 0;

  // The number or literal being read.
  private numberStart = 0;
  private numberText = '';
  private literal: { text: string; value: unknown } | undefined;
  private literalIndex = 0;

  constructor(options: IncrementalJsonOptions = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /**
   * Consume the next bytes of the JSON text. The chunk is not referenced after this returns.
   * A syntax error does not throw here: the parser stops reading (further chunks are ignored, cheaply)
   * and `end()` throws it. `failed` tells whether that has happened.
   */
  push(chunk: Uint8Array): void {
    if (this.state === ENDED) throw new Error('IncrementalJsonParser: push() after end()');
    if (this.state === FAILED) {
      this.offset += chunk.byteLength;
      return;
    }
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    try {
      this.consume(bytes);
    } catch (error) {
      this.fail(error);
    } finally {
      this.offset += bytes.length;
    }
  }

  /** The input is complete: returns the value, or throws the JsonSyntaxError for the whole text. */
  end(): unknown {
    if (this.state === ENDED) throw new Error('IncrementalJsonParser: end() called twice');
    if (this.state !== FAILED) {
      try {
        if (this.state === NUMBER) this.finishNumber();
        if (this.state !== AFTER || this.stack.length > 0) {
          throw new JsonSyntaxError('Unexpected end of JSON input', this.offset);
        }
      } catch (error) {
        this.fail(error);
      }
    }
    const failure = this.failure;
    const failed = this.state === FAILED;
    const result = this.result;
    this.release();
    this.state = ENDED;
    if (failed) throw failure;
    return result;
  }

  /** True once a syntax error was found; `end()` will throw it. */
  get failed(): boolean {
    return this.state === FAILED;
  }

  /** Bytes pushed so far. */
  get bytesPushed(): number {
    return this.offset;
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.state = FAILED;
    this.release();
  }

  /** Drop everything big, so a failed or finished parser pins no memory. */
  private release(): void {
    this.stack.length = 0;
    this.result = undefined;
    this.stage = undefined;
    this.stageFill = 0;
    this.pieces = [];
    this.piecesLength = 0;
    this.rope = '';
    this.numberText = '';
  }

  private consume(bytes: Buffer): void {
    this.quoteAt = -2;
    this.backslashAt = -2;
    const length = bytes.length;
    let i = 0;
    while (i < length) {
      switch (this.state) {
        case STRING:
          i = this.scanString(bytes, i);
          break;
        case ESCAPE:
          i = this.escape(bytes, i);
          break;
        case UNICODE:
          i = this.unicodeEscape(bytes, i);
          break;
        case NUMBER:
          i = this.scanNumber(bytes, i);
          break;
        case LITERAL:
          i = this.scanLiteral(bytes, i);
          break;
        default:
          i = this.structural(bytes, i);
      }
    }
  }

  // ---- structure ----

  private structural(bytes: Buffer, i: number): number {
    const byte = bytes[i]!;
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) return i + 1;
    switch (this.state) {
      case VALUE:
        return this.startValue(bytes, i);
      case ARRAY_FIRST:
        if (byte === 0x5d) return this.close(i);
        return this.startValue(bytes, i);
      case OBJECT_FIRST:
        if (byte === 0x7d) return this.close(i);
        if (byte === QUOTE) return this.startString(true, i);
        break;
      case KEY:
        if (byte === QUOTE) return this.startString(true, i);
        break;
      case COLON:
        if (byte === 0x3a) {
          this.state = VALUE;
          return i + 1;
        }
        break;
      case AFTER: {
        const top = this.stack[this.stack.length - 1];
        if (top === undefined) break; // trailing garbage after the top-level value
        if (byte === 0x2c) {
          this.state = top.isArray ? VALUE : KEY;
          return i + 1;
        }
        if (byte === 0x5d && top.isArray) return this.close(i);
        if (byte === 0x7d && !top.isArray) return this.close(i);
        break;
      }
    }
    return this.unexpected(byte, i);
  }

  private startValue(bytes: Buffer, i: number): number {
    const byte = bytes[i]!;
    if (byte === QUOTE) return this.startString(false, i);
    if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
      this.state = NUMBER;
      this.numberStart = this.offset + i;
      this.numberText = '';
      return i; // scanNumber takes the first byte too
    }
    if (byte === 0x7b || byte === 0x5b) {
      if (this.stack.length >= this.maxDepth) {
        throw new JsonSyntaxError(`JSON nested deeper than ${this.maxDepth} levels`, this.offset + i);
      }
      const isArray = byte === 0x5b;
      this.stack.push({ container: isArray ? [] : {}, isArray, key: '' });
      this.state = isArray ? ARRAY_FIRST : OBJECT_FIRST;
      return i + 1;
    }
    const literal = LITERALS[byte];
    if (literal !== undefined) {
      this.state = LITERAL;
      this.literal = literal;
      this.literalIndex = 1;
      return i + 1;
    }
    return this.unexpected(byte, i);
  }

  /** The closing bracket at i matches the innermost container (the caller checked). */
  private close(i: number): number {
    this.complete(this.stack.pop()!.container);
    return i + 1;
  }

  /** A value is finished: put it into its container (or keep it as the result). */
  private complete(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) this.result = value;
    else if (top.isArray) (top.container as unknown[]).push(value);
    else setMember(top.container as Record<string, unknown>, top.key, value);
    this.state = AFTER;
  }

  private unexpected(byte: number, i: number): never {
    const what =
      byte > 0x20 && byte < 0x7f
        ? `character '${String.fromCharCode(byte)}'`
        : `byte 0x${byte.toString(16).padStart(2, '0')}`;
    throw new JsonSyntaxError(`Unexpected ${what} in JSON`, this.offset + i);
  }

  // ---- numbers and literals ----

  private scanNumber(bytes: Buffer, i: number): number {
    let j = i;
    while (j < bytes.length && isNumberByte(bytes[j]!)) j++;
    if (j > i) this.numberText += bytes.toString('latin1', i, j);
    if (j < bytes.length) this.finishNumber();
    return j;
  }

  private finishNumber(): void {
    // Every byte that can appear in a number was taken, so a text that is not one number is an error
    // for JSON.parse too (whatever follows its longest valid prefix is not allowed after a value).
    if (!NUMBER_SYNTAX.test(this.numberText))
      throw new JsonSyntaxError('Bad number in JSON', this.numberStart);
    const value = Number(this.numberText); // same rounding as JSON.parse, 1e400 is Infinity there too
    this.numberText = '';
    this.complete(value);
  }

  private scanLiteral(bytes: Buffer, i: number): number {
    const literal = this.literal!;
    let j = i;
    while (j < bytes.length && this.literalIndex < literal.text.length) {
      if (bytes[j] !== literal.text.charCodeAt(this.literalIndex)) return this.unexpected(bytes[j]!, j);
      j++;
      this.literalIndex++;
    }
    if (this.literalIndex === literal.text.length) this.complete(literal.value);
    return j;
  }

  // ---- strings ----

  private startString(isKey: boolean, i: number): number {
    this.state = STRING;
    this.stringIsKey = isKey;
    return i + 1;
  }

  /**
   * Read string content from i: plain runs go into the stage, escapes are handled inline while the
   * chunk has their bytes. Returns where it stopped (the end of the chunk, or after the closing quote).
   */
  private scanString(bytes: Buffer, start: number): number {
    const length = bytes.length;
    let i = start;
    while (i < length) {
      // A high-surrogate escape followed by anything but another escape stays alone.
      if (this.pendingHigh >= 0 && bytes[i] !== BACKSLASH) this.resolvePendingHigh();

      // Short runs (typical between the escapes of JSON inside a string) are cheaper to copy here
      // than to search with a native call; the peek is bounded, long runs are left to indexOf below.
      const stage = this.ensureRoom(PEEK + 1);
      let fill = this.stageFill;
      let j = i;
      const peekEnd = Math.min(length, i + PEEK);
      let byte = 0;
      while (j < peekEnd) {
        byte = bytes[j]!;
        if (byte === QUOTE || byte === BACKSLASH || byte < 0x20) break;
        stage[fill++] = byte;
        j++;
      }
      if (j < peekEnd && byte === BACKSLASH && j + 1 < length) {
        // The common escapes, handled without leaving the loop.
        const letter = bytes[j + 1]!;
        const unit = SIMPLE_ESCAPES[letter]!;
        if (unit !== NOT_SIMPLE && this.pendingHigh < 0) {
          stage[fill++] = unit;
          this.stageFill = fill;
          i = j + 2;
          continue;
        }
        if (letter === 0x75 && j + 5 < length) {
          const code = hexQuad(bytes, j + 2);
          if (code >= 0) {
            this.stageFill = fill;
            this.codeUnit(code);
            i = j + 6;
            continue;
          }
        }
      }
      this.stageFill = fill;
      if (j < peekEnd && byte < 0x20) throw this.controlCharacter(j);
      if (j === peekEnd && j < length) {
        const end = this.nextSpecial(bytes, j);
        this.addLongRun(bytes, j, end, end === length);
        j = end;
      }
      if (j === length) return length;
      if (bytes[j] === QUOTE) {
        this.finishString();
        return j + 1;
      }
      // A backslash: handle the escape here if its bytes are in this chunk.
      this.escapeStart = this.offset + j;
      if (j + 1 === length) {
        this.state = ESCAPE;
        return length;
      }
      i = this.escape(bytes, j + 1);
      if (this.state !== STRING) return i;
    }
    return i;
  }

  /** Where the next '"' or '\' is, at or after i (the chunk's length if neither). Linear per chunk. */
  private nextSpecial(bytes: Buffer, i: number): number {
    let quote = this.quoteAt;
    if (quote !== -1 && quote < i) quote = this.quoteAt = bytes.indexOf(QUOTE, i);
    let backslash = this.backslashAt;
    if (backslash !== -1 && backslash < i) backslash = this.backslashAt = bytes.indexOf(BACKSLASH, i);
    if (quote === -1) return backslash === -1 ? bytes.length : backslash;
    return backslash === -1 || quote < backslash ? quote : backslash;
  }

  /** The byte after a backslash. */
  private escape(bytes: Buffer, i: number): number {
    const byte = bytes[i]!;
    if (byte === 0x75) {
      this.state = UNICODE;
      this.hexValue = 0;
      this.hexCount = 0;
      return this.unicodeEscape(bytes, i + 1);
    }
    const unit = SIMPLE_ESCAPES[byte]!;
    if (unit === NOT_SIMPLE) throw new JsonSyntaxError('Bad escape in JSON string', this.escapeStart);
    this.state = STRING;
    this.resolvePendingHigh();
    this.ensureRoom(1)[this.stageFill++] = unit;
    return i + 1;
  }

  private unicodeEscape(bytes: Buffer, i: number): number {
    let j = i;
    while (j < bytes.length && this.hexCount < 4) {
      const digit = hexDigit(bytes[j]!);
      if (digit < 0) throw new JsonSyntaxError('Bad Unicode escape in JSON string', this.escapeStart);
      this.hexValue = this.hexValue * 16 + digit;
      this.hexCount++;
      j++;
    }
    if (this.hexCount === 4) {
      this.state = STRING;
      this.codeUnit(this.hexValue);
    }
    return j;
  }

  /** One UTF-16 code unit from a \u escape: pairs of surrogate escapes become one code point. */
  private codeUnit(unit: number): void {
    if (this.pendingHigh >= 0) {
      if (unit >= 0xdc00 && unit <= 0xdfff) {
        const codePoint = 0x10000 + ((this.pendingHigh - 0xd800) << 10) + (unit - 0xdc00);
        this.pendingHigh = -1;
        this.stageCodePoint(codePoint);
        return;
      }
      this.resolvePendingHigh();
    }
    if (unit >= 0xd800 && unit <= 0xdbff) this.pendingHigh = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) this.emitLoneSurrogate(unit);
    else this.stageCodePoint(unit);
  }

  /** A high-surrogate escape not followed by a low one stays a lone surrogate, as in JSON.parse. */
  private resolvePendingHigh(): void {
    if (this.pendingHigh < 0) return;
    const unit = this.pendingHigh;
    this.pendingHigh = -1;
    this.emitLoneSurrogate(unit);
  }

  /** UTF-8 cannot carry a lone surrogate, so it becomes a piece of its own. */
  private emitLoneSurrogate(unit: number): void {
    this.flushStage(true);
    this.emit(String.fromCharCode(unit));
  }

  private controlCharacter(i: number): JsonSyntaxError {
    return new JsonSyntaxError('Bad control character in JSON string', this.offset + i);
  }

  /** A run of plain bytes longer than PEEK, [start, end) of the chunk. */
  private addLongRun(bytes: Buffer, start: number, end: number, atChunkEnd: boolean): void {
    if (end - start >= DIRECT_MIN) {
      this.decodeInPlace(bytes, start, end, atChunkEnd);
      return;
    }
    // Control characters must be found in the raw bytes: escaped ones (\n) are fine and share the stage.
    // A latin1 view is a plain copy that a native regex can scan; it is garbage at once.
    if (CONTROL_CHARACTER.test(bytes.toString('latin1', start, end))) {
      throw this.controlCharacter(firstControl(bytes, start, end));
    }
    this.stageRaw(bytes, start, end);
  }

  /** A huge run: decode it straight from the chunk, no copy into the stage. */
  private decodeInPlace(bytes: Buffer, start: number, end: number, atChunkEnd: boolean): void {
    let from = start;
    // First let the stage finish a UTF-8 sequence that an earlier chunk cut (at most a few bytes).
    while (this.stageFill > 0 && from < end && incompleteTail(this.stage!, 0, this.stageFill) > 0) {
      if (bytes[from]! < 0x20) throw this.controlCharacter(from);
      this.stageRaw(bytes, from, from + 1);
      from++;
    }
    if (from === end) return;
    this.flushStage(true);
    // A sequence cut by the end of the chunk waits in the stage for its other bytes.
    const cut = atChunkEnd ? end - incompleteTail(bytes, from, end) : end;
    const text = bytes.toString('utf8', from, cut);
    if (CONTROL_CHARACTER.test(text)) throw this.controlCharacter(firstControl(bytes, from, cut));
    this.emit(text);
    if (cut < end) this.stageRaw(bytes, cut, end);
  }

  /** Copy raw string bytes into the stage (decoding what it holds whenever it is full). */
  private stageRaw(bytes: Buffer, start: number, end: number): void {
    let from = start;
    while (from < end) {
      const stage = this.ensureRoom(1);
      const count = Math.min(end - from, stage.length - this.stageFill);
      bytes.copy(stage, this.stageFill, from, from + count);
      this.stageFill += count;
      from += count;
    }
  }

  /** Put one code point (from an escape) into the stage as UTF-8. */
  private stageCodePoint(codePoint: number): void {
    const stage = this.ensureRoom(4);
    let fill = this.stageFill;
    if (codePoint < 0x80) {
      stage[fill++] = codePoint;
    } else if (codePoint < 0x800) {
      stage[fill++] = 0xc0 | (codePoint >> 6);
      stage[fill++] = 0x80 | (codePoint & 0x3f);
    } else if (codePoint < 0x10000) {
      stage[fill++] = 0xe0 | (codePoint >> 12);
      stage[fill++] = 0x80 | ((codePoint >> 6) & 0x3f);
      stage[fill++] = 0x80 | (codePoint & 0x3f);
    } else {
      stage[fill++] = 0xf0 | (codePoint >> 18);
      stage[fill++] = 0x80 | ((codePoint >> 12) & 0x3f);
      stage[fill++] = 0x80 | ((codePoint >> 6) & 0x3f);
      stage[fill++] = 0x80 | (codePoint & 0x3f);
    }
    this.stageFill = fill;
  }

  /** The stage, with room for `count` more bytes: it grows up to STAGE_MAX, then its content is decoded. */
  private ensureRoom(count: number): Buffer {
    let stage = this.stage;
    if (stage === undefined) {
      stage = this.stage = Buffer.allocUnsafe(STAGE_MIN);
    } else if (this.stageFill + count > stage.length) {
      if (stage.length < STAGE_MAX) {
        const bigger = Buffer.allocUnsafe(stage.length * 2);
        stage.copy(bigger, 0, 0, this.stageFill);
        stage = this.stage = bigger;
      } else {
        this.flushStage(false);
      }
    }
    return stage;
  }

  /**
   * Decode the stage into a piece of the string. `final`: the plain run has ended, so an incomplete
   * UTF-8 sequence is invalid (U+FFFD); otherwise it stays in the stage to wait for its other bytes.
   * (Escapes put only complete sequences into the stage, so they never change how raw bytes decode.)
   */
  private flushStage(final: boolean): void {
    const stage = this.stage;
    const fill = this.stageFill;
    if (stage === undefined || fill === 0) return;
    const cut = final ? fill : fill - incompleteTail(stage, 0, fill);
    if (cut > 0) this.emit(stage.toString('utf8', 0, cut));
    if (cut < fill) stage.copyWithin(0, cut, fill);
    this.stageFill = fill - cut;
  }

  /** Append a decoded piece: big ones go onto the rope at once, small ones are gathered first. */
  private emit(text: string): void {
    if (text.length >= PIECE_MIN) {
      this.flushPieces();
      this.rope = this.rope + text;
      return;
    }
    this.pieces.push(text);
    this.piecesLength += text.length;
    if (this.piecesLength >= PIECE_MIN) this.flushPieces();
  }

  private flushPieces(): void {
    const pieces = this.pieces;
    if (pieces.length === 0) return;
    const joined = pieces.length === 1 ? pieces[0]! : pieces.join('');
    pieces.length = 0;
    this.piecesLength = 0;
    this.rope = this.rope + joined;
  }

  private finishString(): void {
    this.resolvePendingHigh();
    let text: string;
    if (this.rope === '' && this.pieces.length === 0) {
      // Short strings (keys, most values) are all in the stage: one decode, no bookkeeping.
      text = this.stageFill === 0 ? '' : this.stage!.toString('utf8', 0, this.stageFill);
      this.stageFill = 0;
    } else {
      this.flushStage(true);
      this.flushPieces();
      text = this.rope;
      this.rope = '';
    }
    if (this.stringIsKey) {
      this.stack[this.stack.length - 1]!.key = text;
      this.state = COLON;
    } else {
      this.complete(text);
    }
  }
}

/**
 * Set a member the way JSON.parse does (CreateDataProperty): an own data property even for
 * `__proto__` or for a name that Object.prototype has as an accessor or read-only property.
 */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key in OBJECT_PROTOTYPE) {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

function isNumberByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2d ||
    byte === 0x2b ||
    byte === 0x2e ||
    byte === 0x65 ||
    byte === 0x45
  );
}

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x61 + 10;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x41 + 10;
  return -1;
}

/** Index of the first byte below 0x20 in [start, end) (only called once one is known to be there). */
/** The value of four hex digits at bytes[at..at+3], or -1 if they are not all hex digits. */
function hexQuad(bytes: Uint8Array, at: number): number {
  const a = hexDigit(bytes[at]!);
  const b = hexDigit(bytes[at + 1]!);
  const c = hexDigit(bytes[at + 2]!);
  const d = hexDigit(bytes[at + 3]!);
  return (a | b | c | d) < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

function firstControl(bytes: Uint8Array, start: number, end: number): number {
  for (let k = start; k < end; k++) if (bytes[k]! < 0x20) return k;
  return start;
}

/**
 * Length (0 to 3) of a UTF-8 sequence at the end of bytes[start, end) that is valid so far but
 * incomplete, so its remaining bytes may still come. Follows the WHATWG decoder (the ranges allowed
 * for the second byte exclude overlong forms, surrogates and code points above U+10FFFF): splitting
 * the input anywhere else decodes to the same text as decoding it whole.
 */
export function incompleteTail(bytes: Uint8Array, start: number, end: number): number {
  for (let k = end - 1; k >= start && k >= end - 3; k--) {
    const byte = bytes[k]!;
    if (byte < 0x80) return 0;
    if (byte < 0xc0) continue; // a continuation byte: look further back for its lead
    if (byte < 0xc2 || byte > 0xf4) return 0; // never a lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    const have = end - k;
    if (have >= needed) return 0;
    if (have >= 2 && !validSecondByte(byte, bytes[k + 1]!)) return 0;
    return have;
  }
  return 0;
}

function validSecondByte(lead: number, second: number): boolean {
  switch (lead) {
    case 0xe0:
      return second >= 0xa0;
    case 0xed:
      return second <= 0x9f;
    case 0xf0:
      return second >= 0x90;
    case 0xf4:
      return second <= 0x8f;
    default:
      return true;
  }
}
