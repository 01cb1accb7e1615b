/**
 * Keeps docs/conformance-coverage.md, the snapshot of the specification's normative sentences, the
 * hand-reviewed requirement index, its exclusions and the check catalogue in step.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  docPath,
  exclusionOf,
  figures,
  loadVersion,
  type RequirementList,
  render,
  sentenceStatuses,
  VERSIONS,
  type VersionData,
} from '../../scripts/conformance-coverage.js';
import { ALL_CHECKS } from './checks.js';

/**
 * MUST checks no MCP server requirement of 2025-11-25 or 2026-07-28 names, each with the reason. They stay in
 * the suite because their requirement lives elsewhere.
 */
const UNREFERENCED_MUST_CHECKS: Record<string, string> = {
  'jsonrpc.batch': 'runs only for 2025-03-26, whose batching sentence is not in the indexed versions',
  'lifecycle.request-before-initialize': 'JSON-RPC 2.0 §5: every call gets a response',
  'jsonrpc.survives-parse-error': 'JSON-RPC 2.0 §5: every call gets a response, also after a parse error',
  'jsonrpc.concurrent-requests':
    'JSON-RPC 2.0 §5: every call gets a response, also when several are in flight',
  'tools.unknown-tool-answered': 'JSON-RPC 2.0 §5: every call gets a response, also for an unknown tool',
  // The pages make schema.ts the source of truth for every message without a MUST sentence of their own.
  'tools.call-result-valid':
    'judges tools/call results against schema.ts, the normative source of every message shape',
  'resources.templates-valid':
    'judges resources/templates/list against schema.ts, the normative source of every message shape',
  'resources.read': 'judges resources/read against schema.ts, the normative source of every message shape',
};

const versions: VersionData[] = VERSIONS.map((v) => loadVersion(v));
const lists: RequirementList[] = versions.map((d) => d.list);
const catalogue = new Set(ALL_CHECKS.map((c) => c.id));

describe('conformance coverage against the specification snapshot', () => {
  it('every normative sentence of the snapshot is indexed by a row or excluded with a reason', () => {
    for (const data of versions) {
      const indexed = new Set(data.list.requirements.flatMap((r) => r.spec));
      const neither = data.snapshot.sentences
        .filter((s) => !indexed.has(s.key) && exclusionOf(data.exclusions, s) === undefined)
        .map((s) => `${s.key} (${s.binds}): ${s.sentence}`);
      expect(neither, data.list.version).toEqual([]);
    }
  });

  it('no sentence is both indexed and excluded, and every exclusion has a reason', () => {
    for (const data of versions) {
      const indexed = new Set(data.list.requirements.flatMap((r) => r.spec));
      const both = data.snapshot.sentences
        .filter((s) => indexed.has(s.key) && exclusionOf(data.exclusions, s) !== undefined)
        .map((s) => s.key);
      expect(both, data.list.version).toEqual([]);
      for (const [key, reason] of [
        ...Object.entries(data.exclusions.sentences),
        ...Object.entries(data.exclusions.pages),
      ])
        expect(reason.trim(), key).not.toBe('');
    }
  });

  it('rows and exclusions name only sentences and pages the snapshot has (nothing stale after re-extraction)', () => {
    for (const data of versions) {
      const byKey = new Map(data.snapshot.sentences.map((s) => [s.key, s]));
      const pages = new Set(data.snapshot.sentences.map((s) => s.page));
      const stale = [
        ...data.list.requirements.flatMap((r) =>
          r.spec.length === 0
            ? [`${r.key}: no spec sentence`]
            : r.spec
                .filter((k) => byKey.get(k)?.page !== r.page)
                .map((k) => `${r.key}: ${k} is not a sentence of ${r.page}`),
        ),
        ...Object.keys(data.exclusions.sentences)
          .filter((k) => !byKey.has(k))
          .map((k) => `exclusion ${k}`),
        ...Object.keys(data.exclusions.pages)
          .filter((p) => !pages.has(p))
          .map((p) => `page exclusion ${p}`),
      ];
      expect(stale, data.list.version).toEqual([]);
      expect(data.snapshot.version).toBe(data.list.version);
      expect(data.exclusions.version).toBe(data.list.version);
    }
  });
});

describe('conformance coverage index', () => {
  it('the document on disk is what the renderer produces', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(render(versions, catalogue));
  });

  it('every referenced check id exists in the catalogue', () => {
    const missing = lists.flatMap((l) =>
      l.requirements.flatMap((r) =>
        (r.checks ?? []).filter((id) => !catalogue.has(id)).map((id) => `${l.version} ${r.key}: ${id}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it('a check is referenced only from the version it runs in', () => {
    const versionsOf = new Map(ALL_CHECKS.map((c) => [c.id, c.versions as readonly string[]]));
    const wrong = lists.flatMap((l) =>
      l.requirements.flatMap((r) =>
        (r.checks ?? [])
          .filter((id) => versionsOf.has(id) && !versionsOf.get(id)?.includes(l.version))
          .map((id) => `${l.version} ${r.key}: ${id}`),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it('every MUST check is referenced by a requirement or explained in the allow-list', () => {
    const referenced = new Set(lists.flatMap((l) => l.requirements.flatMap((r) => r.checks ?? [])));
    const orphans = ALL_CHECKS.filter(
      (c) => c.level === 'MUST' && !referenced.has(c.id) && !(c.id in UNREFERENCED_MUST_CHECKS),
    ).map((c) => c.id);
    expect(orphans).toEqual([]);
    // An allow-listed check that is referenced after all, or gone, makes the list stale.
    for (const id of Object.keys(UNREFERENCED_MUST_CHECKS)) {
      expect(referenced.has(id), id).toBe(false);
      expect(catalogue.has(id), id).toBe(true);
    }
  });

  it('every requirement is well-formed: unique key, checks or a reason, never both', () => {
    for (const l of lists) {
      const keys = l.requirements.map((r) => r.key);
      expect(new Set(keys).size, l.version).toBe(keys.length);
      for (const r of l.requirements) {
        expect(['MUST', 'SHOULD'], r.key).toContain(r.level);
        expect(r.checks !== undefined && r.unobservable !== undefined, r.key).toBe(false);
        expect(r.checks !== undefined || r.unobservable !== undefined, r.key).toBe(true);
        if (r.unobservable !== undefined) expect(r.unobservable.trim(), r.key).not.toBe('');
      }
    }
  });

  it('the printed figures follow from the snapshot', () => {
    const doc = readFileSync(docPath, 'utf8');
    for (const data of versions) {
      for (const level of ['MUST', 'SHOULD'] as const) {
        const statuses = sentenceStatuses(data).filter((s) => s.sentence.level === level);
        // Counted here the long way: a sentence is covered when each of its observable rows names a check.
        const observable = statuses.filter((s) => s.rows.some((r) => r.unobservable === undefined));
        const covered = observable.filter((s) =>
          s.rows.every((r) => r.unobservable !== undefined || (r.checks ?? []).length > 0),
        );
        const f = figures(data, level);
        expect([f.total, f.observable, f.covered]).toEqual([
          statuses.length,
          observable.length,
          covered.length,
        ]);
        expect(f.percent).toBe(Math.floor((covered.length * 100) / observable.length));
        const section = doc.slice(doc.indexOf(`## MCP ${data.list.version}`));
        const percent = level === 'MUST' ? `**${f.percent} %**` : `${f.percent} %`;
        expect(section).toContain(`| ${level} | ${f.total} | ${f.observable} | ${f.covered} | ${percent} |`);
      }
    }
  });

  it('figures count snapshot sentences once, covered only when every observable row has a check', () => {
    const sentence = (key: string, level: 'MUST' | 'SHOULD') => ({
      key,
      page: 'p',
      section: ['s'],
      level,
      keywords: [level],
      binds: 'server' as const,
      sentence: key,
    });
    const data: VersionData = {
      list: {
        version: 'x',
        requirements: [
          { key: 'a', spec: ['p#a'], page: 'p', section: 's', level: 'MUST', sentence: 'a', checks: ['c'] },
          { key: 'a2', spec: ['p#a'], page: 'p', section: 's', level: 'MUST', sentence: 'a', checks: ['c'] },
          { key: 'b', spec: ['p#b'], page: 'p', section: 's', level: 'MUST', sentence: 'b', checks: [] },
          { key: 'b2', spec: ['p#b'], page: 'p', section: 's', level: 'MUST', sentence: 'b', checks: ['c'] },
          {
            key: 'c',
            spec: ['p#c'],
            page: 'p',
            section: 's',
            level: 'MUST',
            sentence: 'c',
            unobservable: 'internal',
          },
          { key: 'd', spec: ['p#d'], page: 'p', section: 's', level: 'SHOULD', sentence: 'd', checks: ['c'] },
        ],
      },
      snapshot: {
        version: 'x',
        sentences: [
          sentence('p#a', 'MUST'),
          sentence('p#b', 'MUST'),
          sentence('p#c', 'MUST'),
          sentence('p#d', 'SHOULD'),
          sentence('p#e', 'MUST'),
        ],
      },
      exclusions: { version: 'x', pages: {}, sentences: { 'p#e': 'binds the client only' } },
    };
    expect(figures(data, 'MUST')).toEqual({ total: 3, observable: 2, covered: 1, percent: 50 });
    expect(figures(data, 'SHOULD')).toEqual({ total: 1, observable: 1, covered: 1, percent: 100 });
    const text = render([data], new Set(['c']));
    expect(text).toContain('**not covered**');
    expect(text).toContain('*internal*');
    expect(text).toContain('- `b` (p, s): p#b');
    expect(text).toContain('| binds the client only | 1 |');
  });
});
