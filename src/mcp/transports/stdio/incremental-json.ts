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
 * - the bytes of a string are located with `indexOf` (native memchr), never walked byte by byte in JS;
 * - they are copied into a reused staging buffer (the caller's chunk is not kept) and decoded in
 *   pieces of up to STAGE_MAX bytes: big enough to land in V8's large-object space, which the young
 *   generation GC never copies;
 * - pieces are appended with `+`, which makes a V8 rope (no copy), instead of an array `join`, which
 *   would copy everything again while the pieces are still alive;
 * - escapes are written into the staging buffer as UTF-8 too (`\"` in a JSON-in-JSON string must not
 *   cut the string into thousands of tiny pieces). Only escapes that yield a control character or a
 *   lone surrogate are emitted apart, so the control-character check can run on the decoded text with
 *   a native regex and only ever sees raw bytes.
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

const LITERALS: Record<number, { text: string; value: unknown }> = {
  116: { text: 'true', value: true },
  102: { text: 'false', value: false },
  110: { text: 'null', value: null },
};

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
  private stringStart = 0;
  private stage: Buffer | undefined;
  private stageFill = 0;
  /** Pairs [stage offset, input position]: where raw bytes in the stage came from, for error positions. */
  private anchors: number[] = [];
  private pieces: string[] = [];
  private piecesLength = 0;
  private rope = '';
  /** A \uD800-\uDBFF escape waiting to see whether a low-surrogate escape follows (-1: none). */
  private pendingHigh = -1;
  private escapeStart = 0;
  private hexValue = 0;
  private hexCount = 0;

  // The number or literal being read.
  private tokenStart = 0;
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
    if (this.state === FAILED) return;
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
    this.anchors = [];
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
        if (byte === 0x5d) return this.close(true, i);
        return this.startValue(bytes, i);
      case OBJECT_FIRST:
        if (byte === 0x7d) return this.close(false, i);
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
        if (byte === 0x5d && top.isArray) return this.close(true, i);
        if (byte === 0x7d && !top.isArray) return this.close(false, i);
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
      this.tokenStart = this.offset + i;
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
      this.tokenStart = this.offset + i;
      return i + 1;
    }
    return this.unexpected(byte, i);
  }

  private close(isArray: boolean, i: number): number {
    const frame = this.stack.pop()!;
    // The caller checked the kind already; this guards the invariant.
    if (frame.isArray !== isArray) return this.unexpected(isArray ? 0x5d : 0x7d, i);
    this.complete(frame.container);
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
      throw new JsonSyntaxError('Bad number in JSON', this.tokenStart);
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
    this.stringStart = this.offset + i;
    return i + 1;
  }

  private scanString(bytes: Buffer, i: number): number {
    // The positions are remembered per chunk, so a string with many escapes is still searched in linear time.
    let quote = this.quoteAt;
    if (quote !== -1 && quote < i) quote = this.quoteAt = bytes.indexOf(QUOTE, i);
    let backslash = this.backslashAt;
    if (backslash !== -1 && backslash < i) backslash = this.backslashAt = bytes.indexOf(BACKSLASH, i);

    if (quote !== -1 && (backslash === -1 || quote < backslash)) {
      if (quote > i) this.addRun(bytes, i, quote, true, false);
      this.finishString();
      return quote + 1;
    }
    if (backslash !== -1) {
      if (backslash > i) this.addRun(bytes, i, backslash, false, false);
      this.state = ESCAPE;
      this.escapeStart = this.offset + backslash;
      return backslash + 1;
    }
    this.addRun(bytes, i, bytes.length, false, true);
    return bytes.length;
  }

  private escape(bytes: Buffer, i: number): number {
    const byte = bytes[i]!;
    this.state = STRING;
    switch (byte) {
      case 0x22: // \"
      case 0x5c: // \\
      case 0x2f: // \/
        this.resolvePendingHigh();
        this.stageCodePoint(byte);
        return i + 1;
      case 0x62: // \b
        return this.controlEscape(8, i);
      case 0x66: // \f
        return this.controlEscape(0x0c, i);
      case 0x6e: // \n
        return this.controlEscape(0x0a, i);
      case 0x72: // \r
        return this.controlEscape(0x0d, i);
      case 0x74: // \t
        return this.controlEscape(0x09, i);
      case 0x75: // \u
        this.state = UNICODE;
        this.hexValue = 0;
        this.hexCount = 0;
        return i + 1;
    }
    throw new JsonSyntaxError('Bad escape in JSON string', this.escapeStart);
  }

  private controlEscape(unit: number, i: number): number {
    this.resolvePendingHigh();
    this.emitUnit(unit);
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
    else if (unit < 0x20 || (unit >= 0xdc00 && unit <= 0xdfff)) this.emitUnit(unit);
    else this.stageCodePoint(unit);
  }

  /** A high-surrogate escape not followed by a low one stays a lone surrogate, as in JSON.parse. */
  private resolvePendingHigh(): void {
    if (this.pendingHigh < 0) return;
    const unit = this.pendingHigh;
    this.pendingHigh = -1;
    this.emitUnit(unit);
  }

  /** A code unit that cannot go through the staging buffer (control character or lone surrogate). */
  private emitUnit(unit: number): void {
    this.flushStage(true);
    this.emit(String.fromCharCode(unit));
  }

  /** Plain bytes of the string, [start, end) of the chunk. */
  private addRun(bytes: Buffer, start: number, end: number, endsString: boolean, atChunkEnd: boolean): void {
    this.resolvePendingHigh();
    let from = start;
    if (this.stageFill === 0 ? !(endsString || end - start >= DIRECT_MIN) : end - start < DIRECT_MIN) {
      this.stageRaw(bytes, from, end);
      return;
    }
    // Decode in place. First let the stage finish a UTF-8 sequence that the previous chunk cut.
    while (this.stageFill > 0 && from < end) {
      if (incompleteTail(this.stage!, 0, this.stageFill) === 0) {
        this.flushStage(true);
        break;
      }
      this.stageRaw(bytes, from, from + 1);
      from++;
    }
    if (from === end) return;
    if (this.stageFill > 0) this.flushStage(true);
    // A sequence cut by the end of the chunk waits in the stage for its other bytes.
    const cut = atChunkEnd ? end - incompleteTail(bytes, from, end) : end;
    if (cut > from) {
      const text = bytes.toString('utf8', from, cut);
      if (CONTROL_CHARACTER.test(text)) {
        throw new JsonSyntaxError(
          'Bad control character in JSON string',
          this.offset + firstControl(bytes, from, cut),
        );
      }
      this.emit(text);
    }
    if (cut < end) this.stageRaw(bytes, cut, end);
  }

  /** Copy raw string bytes into the stage (decoding what it holds whenever it is full). */
  private stageRaw(bytes: Buffer, start: number, end: number): void {
    let from = start;
    while (from < end) {
      const stage = this.ensureRoom(1);
      const count = Math.min(end - from, stage.length - this.stageFill);
      this.anchor(this.stageFill, this.offset + from);
      if (count <= 16) {
        for (let k = 0; k < count; k++) stage[this.stageFill + k] = bytes[from + k]!;
      } else {
        bytes.copy(stage, this.stageFill, from, from + count);
      }
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

  /** Remember where raw bytes at this stage offset came from, unless that follows from the last anchor. */
  private anchor(stageOffset: number, position: number): void {
    const anchors = this.anchors;
    const last = anchors.length - 2;
    if (last >= 0 && anchors[last + 1]! + (stageOffset - anchors[last]!) === position) return;
    anchors.push(stageOffset, position);
  }

  /** The input position of a raw byte in the stage. */
  private stagePosition(stageOffset: number): number {
    const anchors = this.anchors;
    let k = anchors.length - 2;
    while (k > 0 && anchors[k]! > stageOffset) k -= 2;
    return k >= 0 ? anchors[k + 1]! + (stageOffset - anchors[k]!) : this.stringStart;
  }

  /**
   * Decode the stage into a piece of the string. `final`: the string's plain run has ended, so an
   * incomplete UTF-8 sequence is invalid (U+FFFD); otherwise it waits in the stage for its other bytes.
   */
  private flushStage(final: boolean): void {
    const stage = this.stage;
    const fill = this.stageFill;
    if (stage === undefined || fill === 0) return;
    const cut = final ? fill : fill - incompleteTail(stage, 0, fill);
    if (cut > 0) {
      const text = stage.toString('utf8', 0, cut);
      // Escapes that yield control characters never enter the stage, so any found here was raw.
      if (CONTROL_CHARACTER.test(text)) {
        throw new JsonSyntaxError(
          'Bad control character in JSON string',
          this.stagePosition(firstControl(stage, 0, cut)),
        );
      }
      this.emit(text);
    }
    if (cut < fill) {
      const position = this.stagePosition(cut);
      stage.copyWithin(0, cut, fill);
      this.anchors = [0, position];
    } else {
      this.anchors.length = 0;
    }
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
    this.flushStage(true);
    this.flushPieces();
    const text = this.rope;
    this.rope = '';
    this.anchors.length = 0;
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
