/**
 * Renders docs/conformance-coverage.md: every server MUST and SHOULD of each specification version the
 * suite knows, with the checks that cover it or the reason the wire cannot show it.
 *
 * Three kinds of data meet here:
 * - the snapshot of the specification's normative sentences (fixtures/conformance/spec-requirements/
 *   <version>.json, written by scripts/spec-requirements.ts from the specification repository): the yardstick;
 * - the hand-reviewed index (fixtures/conformance/requirements/<version>.json): rows that each name the
 *   snapshot sentences they stand for (`spec`) and the checks that judge them or why the wire cannot show them;
 * - the exclusions (fixtures/conformance/spec-requirements/<version>.exclusions.json): sentences that bind no
 *   server, each with the reason.
 * The figures count snapshot sentences, not rows, so a sentence nobody reviewed cannot hide from them, and
 * conformance/server/coverage.test.ts fails when a sentence is neither indexed nor excluded.
 *
 * `npm run coverage:doc` writes the file; `--check` only compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exclusionsPath, loadSnapshot, type SpecSentence, type SpecSnapshot } from './spec-requirements.js';

export interface Requirement {
  /** Stable short id, unique within its version. */
  key: string;
  /** Keys of the snapshot sentences this row stands for (usually one; a row may share a sentence). */
  spec: string[];
  /** Spec page below docs/specification/<version>/, without `.mdx`. */
  page: string;
  section: string;
  level: 'MUST' | 'SHOULD';
  /** The sentence, shortened where long. */
  sentence: string;
  /** Check ids that judge this requirement; empty when observable but not (yet) checked. */
  checks?: string[];
  /** Why the wire cannot show a breach; present only when `checks` is absent. */
  unobservable?: string;
}

export interface RequirementList {
  version: string;
  requirements: Requirement[];
}

/** Snapshot sentences that bind no server (or restate one indexed elsewhere), each with the reason. */
export interface Exclusions {
  version: string;
  /** Whole pages left out, by page name. */
  pages: Record<string, string>;
  /** Single sentences left out, by snapshot key. */
  sentences: Record<string, string>;
}

/** What the coverage figures are computed from: the snapshot of one version with its index and exclusions. */
export interface VersionData {
  list: RequirementList;
  snapshot: SpecSnapshot;
  exclusions: Exclusions;
}

export interface LevelFigures {
  total: number;
  observable: number;
  covered: number;
  /** covered / observable, in whole percent rounded down; 100 when nothing is observable. */
  percent: number;
}

export const VERSIONS = ['2025-11-25', '2026-07-28'] as const;

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const docPath = path.join(repoRoot, 'docs', 'conformance-coverage.md');

export function loadRequirements(version: string): RequirementList {
  const file = path.join(repoRoot, 'fixtures', 'conformance', 'requirements', `${version}.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as RequirementList;
}

export function loadExclusions(version: string): Exclusions {
  return JSON.parse(readFileSync(exclusionsPath(version), 'utf8')) as Exclusions;
}

export function loadVersion(version: string): VersionData {
  return {
    list: loadRequirements(version),
    snapshot: loadSnapshot(version),
    exclusions: loadExclusions(version),
  };
}

export const isObservable = (r: Requirement): boolean => r.unobservable === undefined;
export const isCovered = (r: Requirement): boolean => isObservable(r) && (r.checks?.length ?? 0) > 0;

/** The reason a snapshot sentence is left out of the index, or undefined when it is not. */
export function exclusionOf(exclusions: Exclusions, sentence: SpecSentence): string | undefined {
  return exclusions.sentences[sentence.key] ?? exclusions.pages[sentence.page];
}

/** How one snapshot sentence stands in the index. */
export interface SentenceStatus {
  sentence: SpecSentence;
  rows: Requirement[];
  /** At least one row says a client can see it broken. */
  observable: boolean;
  /** Observable, and every observable row standing for it names a check. */
  covered: boolean;
}

export function sentenceStatuses(data: VersionData): SentenceStatus[] {
  const rowsOf = new Map<string, Requirement[]>();
  for (const r of data.list.requirements)
    for (const key of r.spec) rowsOf.set(key, [...(rowsOf.get(key) ?? []), r]);
  return data.snapshot.sentences.flatMap((sentence) => {
    const rows = rowsOf.get(sentence.key) ?? [];
    if (rows.length === 0) return [];
    const observableRows = rows.filter(isObservable);
    const observable = observableRows.length > 0;
    return [{ sentence, rows, observable, covered: observable && observableRows.every(isCovered) }];
  });
}

/**
 * Figures over the indexed snapshot sentences of one level: a sentence counts once however many rows stand
 * for it, and is covered only when all its observable parts are.
 */
export function figures(data: VersionData, level: SpecSentence['level']): LevelFigures {
  const ofLevel = sentenceStatuses(data).filter((s) => s.sentence.level === level);
  const observable = ofLevel.filter((s) => s.observable).length;
  const covered = ofLevel.filter((s) => s.covered).length;
  // Rounded down so the printed figure never claims more than was measured.
  const percent = observable === 0 ? 100 : Math.floor((covered * 100) / observable);
  return { total: ofLevel.length, observable, covered, percent };
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function coverCell(r: Requirement, known: ReadonlySet<string>): string {
  if (!isObservable(r)) return `— *${cell(r.unobservable ?? '')}*`;
  if (!r.checks || r.checks.length === 0) return '**not covered**';
  // An id missing from the catalogue is marked, so the document never claims a check that does not exist.
  return r.checks.map((id) => (known.has(id) ? `\`${id}\`` : `\`${id}\` (missing)`)).join(', ');
}

export function render(versions: readonly VersionData[], checkIds: ReadonlySet<string>): string {
  const out: string[] = [];
  out.push('# Conformance coverage: server requirements of the specification');
  out.push('');
  out.push(
    'Generated by `npm run coverage:doc`; do not edit by hand. The yardstick is a snapshot of every normative',
    'sentence (MUST, MUST NOT, SHOULD, SHOULD NOT, REQUIRED, SHALL, SHALL NOT) of the specification pages,',
    'extracted by `scripts/spec-requirements.ts` into `fixtures/conformance/spec-requirements/<version>.json`.',
    'Each sentence that binds a server is indexed by a hand-reviewed row of',
    '`fixtures/conformance/requirements/<version>.json` (the checks that judge it, or the reason the wire',
    'cannot show it broken); every other sentence is excluded with its reason in',
    '`fixtures/conformance/spec-requirements/<version>.exclusions.json`.',
    '`conformance/server/coverage.test.ts` fails when a sentence is neither, or when this file, the data and',
    'the check catalogue disagree.',
  );
  out.push('');
  out.push(
    'Figures count snapshot sentences, not rows. A sentence is *observable* when a client can catch a server',
    'breaking it on the wire, and *covered* when every observable row standing for it names a check. A sentence',
    'with both keywords counts as MUST. Checks that need a server feature (tools, prompts, logging…) judge it',
    'only when the server offers that feature. Figures are rounded down.',
  );
  out.push('');
  for (const data of versions) {
    const { list, snapshot, exclusions } = data;
    const must = figures(data, 'MUST');
    const should = figures(data, 'SHOULD');
    const excluded = snapshot.sentences.filter((s) => exclusionOf(exclusions, s) !== undefined);
    out.push(`## MCP ${list.version}`);
    out.push('');
    out.push(
      `Snapshot: ${snapshot.sentences.length} normative sentences` +
        (snapshot.commit ? ` (specification commit \`${snapshot.commit.slice(0, 12)}\`)` : '') +
        `; ${snapshot.sentences.length - excluded.length} bind a server and are indexed by ${list.requirements.length} rows;` +
        ` ${excluded.length} are excluded.`,
    );
    out.push('');
    out.push('| Level | Server requirements | Observable on the wire | Covered by a check | Coverage |');
    out.push('| --- | --- | --- | --- | --- |');
    out.push(`| MUST | ${must.total} | ${must.observable} | ${must.covered} | **${must.percent} %** |`);
    out.push(`| SHOULD | ${should.total} | ${should.observable} | ${should.covered} | ${should.percent} % |`);
    out.push('');
    const uncovered = sentenceStatuses(data).filter(
      (s) => s.sentence.level === 'MUST' && s.observable && !s.covered,
    );
    if (uncovered.length > 0) {
      out.push(`Observable MUSTs no check covers yet (${uncovered.length}):`);
      out.push('');
      for (const s of uncovered) {
        const keys = s.rows.filter((r) => isObservable(r) && !isCovered(r)).map((r) => `\`${r.key}\``);
        out.push(
          `- ${keys.join(', ')} (${s.sentence.page}, ${s.sentence.section.at(-1) ?? 'top'}): ${cell(s.sentence.sentence)}`,
        );
      }
      out.push('');
    }
    const pages = [...new Set(list.requirements.map((r) => r.page))];
    for (const page of pages) {
      out.push(`### ${page}`);
      out.push('');
      out.push('| Key | Level | Section | Requirement | Checks, or why not observable |');
      out.push('| --- | --- | --- | --- | --- |');
      for (const r of list.requirements.filter((x) => x.page === page)) {
        out.push(
          `| ${r.key} | ${r.level} | ${cell(r.section)} | ${cell(r.sentence)} | ${coverCell(r, checkIds)} |`,
        );
      }
      out.push('');
    }
    out.push(`### Excluded sentences of ${list.version}`);
    out.push('');
    out.push('| Reason | Sentences |');
    out.push('| --- | --- |');
    const byReason = new Map<string, number>();
    for (const s of excluded) {
      const reason = exclusionOf(exclusions, s) ?? '';
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    for (const [reason, n] of [...byReason].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
      out.push(`| ${cell(reason)} | ${n} |`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export async function renderFromRepo(): Promise<string> {
  const { ALL_CHECKS } = await import('../conformance/server/checks.js');
  const ids = new Set(ALL_CHECKS.map((c) => c.id));
  return render(
    VERSIONS.map((v) => loadVersion(v)),
    ids,
  );
}

async function main(): Promise<void> {
  const text = await renderFromRepo();
  if (process.argv.includes('--check')) {
    const onDisk = readFileSync(docPath, 'utf8');
    if (onDisk !== text) {
      console.error('docs/conformance-coverage.md is out of date; run `npm run coverage:doc`.');
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(docPath, text);
  console.log(`wrote ${path.relative(repoRoot, docPath)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
