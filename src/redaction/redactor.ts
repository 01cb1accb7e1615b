/**
 * Masks known secret values wherever they appear, as substrings. One job: given the values, hide them.
 * Which values are secret is decided elsewhere (`secret-parts.ts` splits headers and URLs,
 * `config/secrets.ts` walks the config, `agent/known-secrets.ts` adds the environment).
 *
 * - Every occurrence of every secret is found, overlapping ones included; each run of covered
 *   characters becomes one `***`, so no part of any occurrence survives, whatever the overlaps.
 * - Each secret is also looked for in its percent-encoded and JSON-escaped spellings (cheap, and the
 *   forms a secret takes in URLs and serialized JSON), and in its base64, base64url and hex encodings,
 *   also where line breaks split them (`base64 ~/.furflycode/tokens.json` must not hand a token over).
 * - Values too short or too common to mask safely are ignored (`isMaskable`): masking `1` or `true`
 *   would garble every output while protecting nothing.
 * - Structured values are redacted string by string (`value`), never as serialized JSON, so the
 *   structure always survives; the mask has no character JSON would have to escape.
 */

export const MASK = '***';

/**
 * Shorter values are not masked. Eight characters is the usual minimum for a password (NIST SP
 * 800-63B) and every API key or token is far longer; below that, values are ordinary words and
 * numbers (`true`, `8080`, `admin`) that occur everywhere, and masking them would destroy output.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Values at least MIN_SECRET_LENGTH long that are still too common to mask: values people put in
 * `env` or headers that are configuration, not credentials, and words that appear in ordinary text.
 * Compared case-insensitively.
 */
const TOO_COMMON = new Set([
  'production',
  'development',
  'localhost',
  'undefined',
  'negotiate',
  'application/json',
  'text/event-stream',
  'text/plain',
  'utf-8',
  '127.0.0.1',
  '0.0.0.0',
]);

/** Whether `value` can be masked without destroying unrelated text. */
export function isMaskable(value: string): boolean {
  return value.trim().length >= MIN_SECRET_LENGTH && !TOO_COMMON.has(value.trim().toLowerCase());
}

export class Redactor {
  /** Redacts nothing. */
  static readonly none = new Redactor([]);

  /** The secrets (the maskable ones only), longest first. */
  secrets: readonly string[];
  /** The secrets and their other spellings: what is searched for. */
  private needles: readonly string[];
  /**
   * The secrets' base64 and hex encodings: searched for also across line breaks, since `base64` wraps its
   * output at 76 characters and `xxd -p` at 60.
   */
  private encodedNeedles: readonly string[];

  constructor(secrets: Iterable<string>) {
    const kept = new Set<string>();
    for (const secret of secrets) if (typeof secret === 'string' && isMaskable(secret)) kept.add(secret);
    this.secrets = [...kept].sort((a, b) => b.length - a.length);
    const needles = new Set<string>();
    const encoded = new Set<string>();
    for (const secret of this.secrets) {
      for (const form of spellingsOf(secret)) needles.add(form);
      for (const form of encodingsOf(secret)) encoded.add(form);
    }
    this.needles = [...needles];
    this.encodedNeedles = [...encoded];
  }

  /**
   * Masks `secret` from now on too: for secrets that appear while a session runs (an OAuth token got by a
   * refresh or a login). Redactors made earlier with `with` do not learn it; `Redactor.none` never does.
   */
  learn(secret: string): void {
    if (this === Redactor.none || !isMaskable(secret) || this.secrets.includes(secret)) return;
    this.secrets = [...this.secrets, secret].sort((a, b) => b.length - a.length);
    this.needles = [...new Set([...this.needles, ...spellingsOf(secret)])];
    this.encodedNeedles = [...new Set([...this.encodedNeedles, ...encodingsOf(secret)])];
  }

  /** A redactor that masks the secrets of both. */
  with(other: Redactor | Iterable<string>): Redactor {
    const more = other instanceof Redactor ? other.secrets : other;
    return new Redactor([...this.secrets, ...more]);
  }

  /** `text` with every occurrence of every secret replaced by `***`. */
  text(text: string): string {
    if (this.needles.length === 0) return text;
    let current = text;
    // A mask can complete a new occurrence only of a secret that contains `***`; masking again until
    // nothing changes settles that. Each round replaces at least MIN_SECRET_LENGTH characters by
    // three, so the text shrinks every round and the loop ends.
    for (;;) {
      const next = this.maskOnce(current);
      if (next === current) return current;
      current = next;
    }
  }

  /**
   * A copy of `value` with every string in it (object keys included) redacted. Arrays and plain
   * objects are copied, anything else is kept as it is. Iterative, so a deeply nested value from a
   * server cannot overflow the stack; a value seen twice is copied once (cycles survive).
   */
  value<T>(value: T): T {
    if (this.needles.length === 0) return value;
    if (typeof value === 'string') return this.text(value) as T;
    if (!isContainer(value)) return value;
    const copies = new Map<object, object>();
    const pending: [source: object, copy: object][] = [];
    const copyOf = (item: unknown): unknown => {
      if (typeof item === 'string') return this.text(item);
      if (!isContainer(item)) return item;
      const known = copies.get(item);
      if (known !== undefined) return known;
      const copy = Array.isArray(item) ? [] : Object.create(Object.getPrototypeOf(item));
      copies.set(item, copy);
      pending.push([item, copy]);
      return copy;
    };
    const root = copyOf(value);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [source, copy] = next;
      if (Array.isArray(source)) {
        for (const item of source) (copy as unknown[]).push(copyOf(item));
        continue;
      }
      for (const [key, item] of Object.entries(source)) {
        // defineProperty, so a key like `__proto__` stays data instead of changing the prototype.
        Object.defineProperty(copy, this.text(key), {
          value: copyOf(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return root as T;
  }

  /** Whether `text` holds any secret (in any spelling). */
  finds(text: string): boolean {
    return this.needles.some((needle) => text.includes(needle)) || this.coveredRuns(text).length > 0;
  }

  /**
   * The runs of `text` that occurrences of secrets cover, merged, in order. For text that arrives in
   * pieces (a result's consecutive text parts): the caller masks what each run covers of each piece.
   */
  coveredRuns(text: string): [start: number, end: number][] {
    const covered = this.occurrences(text);
    covered.sort((a, b) => a[0] - b[0]);
    const runs: [number, number][] = [];
    for (const [s, e] of covered) {
      const last = runs.at(-1);
      if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
      else runs.push([s, e]);
    }
    return runs;
  }

  /** Where each needle occurs in `text`; encoded needles also where line breaks split them. */
  private occurrences(text: string): [start: number, end: number][] {
    const covered: [start: number, end: number][] = [];
    for (const needle of this.needles) {
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
        covered.push([at, at + needle.length]);
      }
    }
    if (this.encodedNeedles.length === 0) return covered;
    // The text without line breaks, and where each of its characters was in `text`.
    let joined = '';
    const origin: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\n' || c === '\r') continue;
      joined += c;
      origin.push(i);
    }
    for (const needle of this.encodedNeedles) {
      for (let at = joined.indexOf(needle); at !== -1; at = joined.indexOf(needle, at + 1)) {
        covered.push([origin[at]!, origin[at + needle.length - 1]! + 1]);
      }
    }
    return covered;
  }

  private maskOnce(text: string): string {
    const covered = this.occurrences(text);
    if (covered.length === 0) return text;
    covered.sort((a, b) => a[0] - b[0]);
    let out = '';
    let kept = 0;
    let [start, end] = covered[0]!;
    for (const [s, e] of covered) {
      if (s <= end) {
        end = Math.max(end, e);
        continue;
      }
      out += text.slice(kept, start) + MASK;
      kept = end;
      start = s;
      end = e;
    }
    return out + text.slice(kept, start) + MASK + text.slice(end);
  }
}

/** The secret as written, percent-encoded, and JSON-escaped (each only when it differs). */
function spellingsOf(secret: string): string[] {
  const forms = [secret];
  try {
    forms.push(encodeURIComponent(secret));
  } catch {
    // A lone surrogate cannot be percent-encoded; no URL can carry it either.
  }
  forms.push(JSON.stringify(secret).slice(1, -1));
  return forms;
}

/**
 * The secret's UTF-8 bytes in hex (both cases) and in base64 and base64url, the latter for each of the
 * three positions the secret can have relative to a 3-byte group when it is encoded inside a longer text
 * (`base64 tokens.json`): only the characters that depend on the secret's bytes alone are kept, so they
 * appear whatever surrounds the secret.
 */
export function encodingsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set([hex, hex.toUpperCase()]);
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Character i carries bits [6i, 6i + 6); the secret holds bits [8 * offset, 8 * (offset + n)).
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = encoded.slice(first, end);
    if (core.length < MIN_SECRET_LENGTH) continue;
    forms.add(core);
    forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

function isContainer(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
