/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server that declares it in its
 * capabilities lists skills with `skills/list`; each entry names its SKILL.md (`uri`), the frontmatter
 * that SKILL.md must carry, and every file of the skill with its `digest` (`sha256:<hex>`) and `size`
 * (bytes). The files themselves are resources, read with `resources/read`.
 *
 * What a host must do, and this module does:
 * - "Hosts MUST NOT retrieve a skill's files ahead of need, not on connection, not on listing, and not
 *   at approval": `listSkills` reads nothing; only `loadSkill` reads, when a skill is used.
 * - "When a host retrieves a file listed in a skill's resources, it MUST verify the content against
 *   that entry's digest, and MUST NOT use unverified content"; a read whose byte length differs from the
 *   entry's size is the same failure. Each file is checked (size first, then digest) as it arrives.
 * - "After fetching a SKILL.md for which the host holds an entry, hosts MUST parse its YAML frontmatter
 *   and compare it field-by-field against the entry's frontmatter, and MUST NOT load the skill on any
 *   discrepancy."
 * SKILL.md is read and checked first; on any failure nothing else of the skill is read, and
 * `SkillVerificationError` says which check failed. Nothing of a skill is returned unless all passed.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { RequestOptions } from '../jsonrpc/peer.js';
import { isObject } from '../util/is-object.js';
import type { FeatureClient } from './server-features.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Stop following `nextCursor` after this many pages (as for the other lists). */
const MAX_PAGES = 100;
/** A skill file larger than this is not read at all (the entry says its size before anything is read). */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export interface SkillFile {
  readonly uri: string;
  /** `sha256:<64 hex digits>`. */
  readonly digest: string;
  readonly size: number;
}

export interface SkillEntry {
  /** The SKILL.md's URI. */
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  /** The frontmatter the SKILL.md must carry, field by field. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly files: readonly SkillFile[];
}

export interface LoadedSkill {
  readonly entry: SkillEntry;
  /** SKILL.md's text after its frontmatter. */
  readonly instructions: string;
  /** Every file of the skill, SKILL.md first, each verified. */
  readonly files: readonly { readonly uri: string; readonly text: string }[];
}

export class SkillVerificationError extends Error {
  constructor(
    readonly skill: string,
    readonly uri: string,
    readonly check: 'size' | 'digest' | 'frontmatter' | 'content',
    detail: string,
  ) {
    super(`skill "${skill}": ${uri} failed verification (${check}): ${detail}; the skill was not loaded`);
    this.name = 'SkillVerificationError';
  }
}

/** Whether the server declares the skills extension. */
export function offersSkills(client: Pick<FeatureClient, 'capabilities'>): boolean {
  const extensions = client.capabilities.extensions;
  return isObject(extensions) && isObject(extensions[SKILLS_EXTENSION]);
}

/** The server's skills (no file is read). Entries that are malformed are left out. */
export async function listSkills(client: FeatureClient, options: RequestOptions = {}): Promise<SkillEntry[]> {
  if (!offersSkills(client)) return [];
  const entries: SkillEntry[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request('skills/list', cursor === undefined ? {} : { cursor }, options);
    if (!Array.isArray(result.skills)) throw new Error('skills/list: the result has no "skills" list');
    for (const item of result.skills) {
      const entry = skillEntryOf(item);
      if (entry !== undefined) entries.push(entry);
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return entries;
}

function skillEntryOf(item: unknown): SkillEntry | undefined {
  if (!isObject(item) || typeof item.uri !== 'string' || !isObject(item.frontmatter)) return undefined;
  const { name, description } = item.frontmatter;
  if (typeof name !== 'string' || name === '' || typeof description !== 'string') return undefined;
  const files: SkillFile[] = [];
  for (const file of Array.isArray(item.resources) ? item.resources : []) {
    if (
      !isObject(file) ||
      typeof file.uri !== 'string' ||
      typeof file.digest !== 'string' ||
      !/^sha256:[0-9a-f]{64}$/i.test(file.digest) ||
      typeof file.size !== 'number' ||
      !Number.isInteger(file.size) ||
      file.size < 0
    ) {
      // An entry with a file that cannot be verified can never be loaded: leave the skill out.
      return undefined;
    }
    files.push({ uri: file.uri, digest: file.digest.toLowerCase(), size: file.size });
  }
  // SKILL.md itself must be among the verified files.
  if (!files.some((f) => f.uri === item.uri)) return undefined;
  return { uri: item.uri, name, description, frontmatter: item.frontmatter, files };
}

/**
 * Reads and verifies a skill, SKILL.md first: every file's size and digest, and SKILL.md's frontmatter
 * against the entry. Rejects with `SkillVerificationError` at the first failure, before reading more.
 */
export async function loadSkill(
  client: FeatureClient,
  entry: SkillEntry,
  options: RequestOptions = {},
): Promise<LoadedSkill> {
  const skillMd = entry.files.find((f) => f.uri === entry.uri)!;
  const ordered = [skillMd, ...entry.files.filter((f) => f !== skillMd)];
  const files: { uri: string; text: string }[] = [];
  let instructions = '';
  for (const file of ordered) {
    const text = await readVerified(client, entry, file, options);
    if (file === skillMd) {
      const parsed = splitFrontmatter(text);
      if (parsed === undefined) {
        throw new SkillVerificationError(
          entry.name,
          file.uri,
          'frontmatter',
          'SKILL.md has no YAML frontmatter',
        );
      }
      const mismatch = frontmatterMismatch(entry.frontmatter, parsed.frontmatter);
      if (mismatch !== undefined) {
        throw new SkillVerificationError(
          entry.name,
          file.uri,
          'frontmatter',
          `field "${mismatch}" differs from the listed entry`,
        );
      }
      instructions = parsed.body;
    }
    files.push({ uri: file.uri, text });
  }
  return { entry, instructions, files };
}

async function readVerified(
  client: FeatureClient,
  entry: SkillEntry,
  file: SkillFile,
  options: RequestOptions,
): Promise<string> {
  if (file.size > MAX_SKILL_FILE_BYTES) {
    throw new SkillVerificationError(
      entry.name,
      file.uri,
      'size',
      `listed at ${file.size} bytes, more than furfly reads (${MAX_SKILL_FILE_BYTES})`,
    );
  }
  const result = await client.request('resources/read', { uri: file.uri }, options);
  const contents = Array.isArray(result.contents) ? result.contents.filter(isObject) : [];
  const item = contents.find((c) => c.uri === file.uri) ?? (contents.length === 1 ? contents[0] : undefined);
  let bytes: Buffer;
  if (typeof item?.text === 'string') bytes = Buffer.from(item.text, 'utf8');
  else if (typeof item?.blob === 'string') bytes = Buffer.from(item.blob, 'base64');
  else throw new SkillVerificationError(entry.name, file.uri, 'content', 'the read returned no contents');
  if (bytes.length !== file.size) {
    throw new SkillVerificationError(
      entry.name,
      file.uri,
      'size',
      `${bytes.length} bytes read, ${file.size} listed`,
    );
  }
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (digest !== file.digest) {
    throw new SkillVerificationError(
      entry.name,
      file.uri,
      'digest',
      'the content does not match the listed digest',
    );
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new SkillVerificationError(entry.name, file.uri, 'content', 'not UTF-8 text');
  }
  return text;
}

/** A Markdown file's leading `---` YAML block, parsed, and the text after it. */
export function splitFrontmatter(
  text: string,
): { frontmatter: Record<string, unknown>; body: string } | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!, { maxAliasCount: 0 });
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  return { frontmatter: parsed, body: text.slice(match[0].length) };
}

/** The first field (in either) whose value differs, or undefined when they agree field by field. */
function frontmatterMismatch(
  listed: Readonly<Record<string, unknown>>,
  found: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const key of new Set([...Object.keys(listed), ...Object.keys(found)])) {
    if (!isDeepStrictEqual(listed[key], found[key])) return key;
  }
  return undefined;
}
