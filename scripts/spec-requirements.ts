/**
 * Extracts every normative sentence (MUST, MUST NOT, SHOULD, SHOULD NOT, REQUIRED, SHALL, SHALL NOT) from
 * the specification pages of each protocol version and writes a snapshot per version to
 * fixtures/conformance/spec-requirements/<version>.json.
 *
 * The snapshot is the yardstick of docs/conformance-coverage.md: conformance/server/coverage.test.ts fails
 * when a sentence of it that may bind a server is neither indexed by a hand-reviewed requirement row
 * (fixtures/conformance/requirements/<version>.json, field `spec`) nor excluded with a reason
 * (fixtures/conformance/spec-requirements/<version>.exclusions.json). Re-run it when the specification
 * changes; the diff of the snapshot is the list of sentences to review.
 *
 *   npx tsx scripts/spec-requirements.ts --spec <checkout folder | git dir> [--rev HEAD] [--check] [VERSION…]
 *
 * `--spec` takes either a checkout of modelcontextprotocol/modelcontextprotocol or its bare git directory
 * (then `--rev` picks the commit, HEAD by default). Without versions it extracts 2025-11-25 and 2026-07-28.
 * `--check` writes nothing and exits 1 when a snapshot on disk differs from a fresh extraction.
 *
 * Output is deterministic: pages in path order, sentences in document order, no timestamps. Each sentence
 * carries a key made of its page and a hash of its normalised text, so re-extraction keeps the key of every
 * sentence whose words did not change, wherever it moves on the page.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Keyword = 'MUST' | 'MUST NOT' | 'SHOULD' | 'SHOULD NOT' | 'REQUIRED' | 'SHALL' | 'SHALL NOT';
/** Who the sentence binds, read from the words before its first keyword; `unknown` when they name nobody. */
export type Binds = 'server' | 'client' | 'authorization-server' | 'either' | 'unknown';

export interface SpecSentence {
  /** `<page>#<8 hex digits>`: page plus a hash of the normalised sentence; `~2`, `~3` for repeats on a page. */
  key: string;
  /** Page below docs/specification/<version>/, without `.mdx`. */
  page: string;
  /** Heading path from the page's first heading below the title down to the sentence's own. */
  section: string[];
  /** MUST for MUST, MUST NOT, REQUIRED, SHALL and SHALL NOT; SHOULD for SHOULD and SHOULD NOT. */
  level: 'MUST' | 'SHOULD';
  keywords: Keyword[];
  binds: Binds;
  sentence: string;
}

export interface SpecSnapshot {
  version: string;
  /** The commit of the specification repository the sentences come from, when known. */
  commit?: string;
  sentences: SpecSentence[];
}

export const DEFAULT_VERSIONS = ['2025-11-25', '2026-07-28'] as const;
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const snapshotDir = path.join(repoRoot, 'fixtures', 'conformance', 'spec-requirements');
export const snapshotPath = (version: string): string => path.join(snapshotDir, `${version}.json`);
export const exclusionsPath = (version: string): string =>
  path.join(snapshotDir, `${version}.exclusions.json`);

export function loadSnapshot(version: string): SpecSnapshot {
  return JSON.parse(readFileSync(snapshotPath(version), 'utf8')) as SpecSnapshot;
}

// ---------------------------------------------------------------------------------------------- source

/** Reads the pages of one version from a checkout folder or a (bare) git directory. */
export interface SpecSource {
  commit?: string;
  /** Page files of a version, relative to docs/specification/<version>/, sorted. */
  pages(version: string): string[];
  read(version: string, page: string): string;
}

const specFolder = (version: string): string => `docs/specification/${version}`;

function gitSource(gitDir: string, rev: string): SpecSource {
  const git = (...args: string[]): string =>
    execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return {
    commit: git('rev-parse', `${rev}^{commit}`).trim(),
    pages: (version) =>
      git('ls-tree', '-r', '--name-only', rev, `${specFolder(version)}/`)
        .split('\n')
        .filter((f) => f.endsWith('.mdx'))
        .map((f) => f.slice(specFolder(version).length + 1))
        .sort(),
    read: (version, page) => git('show', `${rev}:${specFolder(version)}/${page}`),
  };
}

function folderSource(root: string): SpecSource {
  const walk = (dir: string, prefix: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (statSync(full).isDirectory()) return walk(full, rel);
      return name.endsWith('.mdx') ? [rel] : [];
    });
  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
  } catch {
    // A plain copy of the repository has no commit to name.
  }
  return {
    commit,
    pages: (version) => walk(path.join(root, specFolder(version)), '').sort(),
    read: (version, page) => readFileSync(path.join(root, specFolder(version), page), 'utf8'),
  };
}

export function openSource(spec: string, rev = 'HEAD'): SpecSource {
  if (existsSync(path.join(spec, 'docs', 'specification'))) return folderSource(spec);
  if (existsSync(path.join(spec, 'HEAD')) && existsSync(path.join(spec, 'objects')))
    return gitSource(spec, rev);
  throw new Error(`${spec} is neither a checkout of the specification repository nor its git directory`);
}

// -------------------------------------------------------------------------------------------- parsing

interface Block {
  section: string[];
  text: string;
  /** A list item or table row, which may complete a lead-in sentence ending in a colon above it. */
  item: boolean;
}

/** Markdown and MDX markup out, words in: links keep their text, emphasis and code marks go. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/<[^>]+>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Splits a page into paragraphs, list items and table rows, each with the headings above it. */
export function blocksOf(mdx: string): Block[] {
  const lines = mdx.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  if (lines[0]?.trim() === '---') {
    i = lines.indexOf('---', 1) + 1;
    if (i === 0) i = lines.length;
  }
  const blocks: Block[] = [];
  const headings: string[] = [];
  let current: string[] = [];
  let item = false;
  let fence: string | undefined;
  const flush = (): void => {
    const text = plainText(current.join(' '));
    if (text) blocks.push({ section: [...headings], text, item });
    current = [];
    item = false;
  };
  for (; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const trimmed = raw.trim();
    if (fence) {
      if (trimmed.startsWith(fence)) fence = undefined;
      continue;
    }
    const opensFence = /^(```+|~~~+)/.exec(trimmed);
    if (opensFence) {
      flush();
      fence = opensFence[1];
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*$/.exec(trimmed);
    if (heading) {
      flush();
      const depth = (heading[1] ?? '#').length;
      headings.length = Math.max(0, depth - 2);
      while (headings.length < depth - 2) headings.push('');
      headings.push(plainText(heading[2] ?? ''));
      continue;
    }
    const line = trimmed.replace(/^>\s?/, '');
    if (line === '' || /^<\/?[A-Za-z][^>]*>$/.test(line)) {
      flush();
      continue;
    }
    if (/^\|/.test(line)) {
      flush();
      // The row above a separator row is the table's header: names of columns, not a statement.
      if (/^\|[\s:|-]+\|?$/.test(line)) {
        if (/^\|/.test((lines[i - 1] ?? '').trim())) blocks.pop();
      } else {
        current.push(line.replace(/\|/g, ' '));
        item = true;
        flush();
      }
      continue;
    }
    if (/^([-*+]|\d+[.)])\s+/.test(line)) {
      flush();
      current.push(line.replace(/^([-*+]|\d+[.)])\s+/, ''));
      item = true;
      continue;
    }
    current.push(line);
  }
  flush();
  return blocks.map((b) => ({ ...b, section: b.section.filter((h) => h !== '') }));
}

const ABBREVIATIONS = ['e.g.', 'i.e.', 'etc.', 'vs.', 'cf.', 'Sec.'];

/** Sentence boundaries: a full stop, question or exclamation mark followed by a capital, quote or bracket. */
export function sentencesOf(text: string): string[] {
  let guarded = text;
  ABBREVIATIONS.forEach((a, n) => {
    guarded = guarded.split(a).join(`\u0000${n}\u0000`);
  });
  return guarded
    .split(/(?<=[.!?])\s+(?=[A-Z"'([])/)
    .map((s) => s.replace(/\u0000(\d+)\u0000/g, (_, n: string) => ABBREVIATIONS[Number(n)] ?? ''))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const KEYWORD = /\b(MUST NOT|MUST|SHOULD NOT|SHOULD|REQUIRED|SHALL NOT|SHALL)\b/g;

export function keywordsOf(sentence: string): Keyword[] {
  const found = new Set<Keyword>();
  for (const m of sentence.matchAll(KEYWORD)) found.add(m[1] as Keyword);
  return [...found].sort();
}

/**
 * The party a sentence binds, taken from the last role the words before its first keyword name. A guess
 * that only sorts the review: the index rows and the exclusions are what a reviewer decided.
 */
export function bindsOf(sentence: string): Binds {
  const first = sentence.search(/\b(MUST|SHOULD|REQUIRED|SHALL)\b/);
  const subject = (first < 0 ? sentence : sentence.slice(0, first)).toLowerCase();
  const roles: [Binds, RegExp][] = [
    ['authorization-server', /\bauthori[sz]ation servers?\b/g],
    [
      'either',
      /\b(both parties|implementations?|receivers?|recipients?|senders?|requestors?|either party|parties)\b/g,
    ],
    ['server', /\b(mcp )?servers?\b|\bresource servers?\b/g],
    ['client', /\b(mcp )?clients?\b|\bhosts?\b/g],
  ];
  let best: { binds: Binds; at: number } | undefined;
  for (const [binds, pattern] of roles) {
    for (const m of subject.matchAll(pattern)) {
      const at = m.index ?? 0;
      // "authorization server" also matches the server pattern; the longer role at the same spot wins.
      const end = at + m[0].length;
      if (!best || end > best.at) best = { binds, at: end };
    }
  }
  return best?.binds ?? 'unknown';
}

/** Lower case, markup and punctuation out, single spaces: the text a key's hash is taken of. */
export const normalise = (sentence: string): string =>
  sentence
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

export const hashOf = (sentence: string): string =>
  createHash('sha256').update(normalise(sentence)).digest('hex').slice(0, 8);

/**
 * The normative sentences of one page. A lead-in such as "Servers SHOULD:" binds the list below it, so each
 * item without a keyword of its own becomes one sentence "<lead-in> <item>" and the bare lead-in is dropped.
 */
export function extractPage(page: string, mdx: string): SpecSentence[] {
  const found: { section: string[]; sentence: string; subject?: string }[] = [];
  let leadIn: { sentence: string; used: boolean; at: number } | undefined;
  // The paragraph introducing a list ("Servers sending this notification:") names who its items bind.
  let subject: string | undefined;
  for (const block of blocksOf(mdx)) {
    if (!block.item) {
      leadIn = undefined;
      subject = block.text.endsWith(':') ? block.text : undefined;
    }
    const sentences = sentencesOf(block.text);
    const normative = sentences.filter((s) => keywordsOf(s).length > 0);
    if (block.item && leadIn && normative.length === 0) {
      found.push({ section: block.section, sentence: `${leadIn.sentence} ${block.text}` });
      if (!leadIn.used) found.splice(leadIn.at, 1);
      leadIn.used = true;
      continue;
    }
    for (const sentence of normative)
      found.push({ section: block.section, sentence, subject: block.item ? subject : undefined });
    const last = sentences[sentences.length - 1];
    if (last?.endsWith(':') && keywordsOf(last).length > 0) {
      leadIn = { sentence: last, used: false, at: found.length - 1 };
    } else if (!block.item || normative.length > 0) {
      leadIn = undefined;
    }
  }
  const seen = new Map<string, number>();
  return found.map(({ section, sentence, subject }) => {
    const keywords = keywordsOf(sentence);
    const base = `${page}#${hashOf(sentence)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      key: n === 1 ? base : `${base}~${n}`,
      page,
      section,
      level: keywords.some((k) => k.startsWith('MUST') || k === 'REQUIRED' || k.startsWith('SHALL'))
        ? 'MUST'
        : 'SHOULD',
      keywords,
      binds: bindsOf(sentence) === 'unknown' && subject ? bindsOf(subject) : bindsOf(sentence),
      sentence,
    };
  });
}

export function extractVersion(source: SpecSource, version: string): SpecSnapshot {
  const sentences = source.pages(version).flatMap((file) => {
    const page = file.replace(/\.mdx$/, '');
    return extractPage(page, source.read(version, file));
  });
  return { version, ...(source.commit ? { commit: source.commit } : {}), sentences };
}

export const serialise = (snapshot: SpecSnapshot): string => `${JSON.stringify(snapshot, null, 1)}\n`;

// ----------------------------------------------------------------------------------------------- main

function main(argv: string[]): void {
  const args = [...argv];
  let spec: string | undefined;
  let rev = 'HEAD';
  let check = false;
  const versions: string[] = [];
  while (args.length > 0) {
    const arg = args.shift() ?? '';
    if (arg === '--spec') spec = args.shift();
    else if (arg === '--rev') rev = args.shift() ?? rev;
    else if (arg === '--check') check = true;
    else if (/^\d{4}-\d{2}-\d{2}$/.test(arg)) versions.push(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!spec) throw new Error('--spec <checkout folder | git dir> is required');
  const source = openSource(spec, rev);
  for (const version of versions.length > 0 ? versions : DEFAULT_VERSIONS) {
    const text = serialise(extractVersion(source, version));
    const file = snapshotPath(version);
    if (check) {
      const onDisk = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (onDisk !== text) {
        console.error(`${path.relative(repoRoot, file)} differs from the specification at ${spec}`);
        process.exitCode = 1;
      }
      continue;
    }
    writeFileSync(file, text);
    const n = (JSON.parse(text) as SpecSnapshot).sentences.length;
    console.log(`wrote ${path.relative(repoRoot, file)} (${n} sentences)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
