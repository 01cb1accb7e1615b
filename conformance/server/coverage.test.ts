/**
 * Keeps docs/conformance-coverage.md, the hand-reviewed requirement lists and the check catalogue in step.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  docPath,
  figures,
  loadRequirements,
  type RequirementList,
  render,
  VERSIONS,
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

const lists: RequirementList[] = VERSIONS.map((v) => loadRequirements(v));
const catalogue = new Set(ALL_CHECKS.map((c) => c.id));

describe('conformance coverage index', () => {
  it('the document on disk is what the renderer produces', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(render(lists, catalogue));
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

  it('the printed figures follow from the data', () => {
    const doc = readFileSync(docPath, 'utf8');
    for (const l of lists) {
      const must = figures(l, 'MUST');
      const counted = l.requirements.filter(
        (r) => r.level === 'MUST' && r.unobservable === undefined && (r.checks ?? []).length > 0,
      ).length;
      expect(must.covered).toBe(counted);
      expect(must.percent).toBe(Math.floor((counted * 100) / must.observable));
      const section = doc.slice(doc.indexOf(`## MCP ${l.version}`));
      expect(section).toContain(
        `| MUST | ${must.total} | ${must.observable} | ${must.covered} | **${must.percent} %** |`,
      );
    }
  });

  it('figures count only observable, checked requirements', () => {
    const list: RequirementList = {
      version: 'x',
      requirements: [
        { key: 'a', page: 'p', section: 's', level: 'MUST', sentence: 'a', checks: ['c'] },
        { key: 'b', page: 'p', section: 's', level: 'MUST', sentence: 'b', checks: [] },
        { key: 'c', page: 'p', section: 's', level: 'MUST', sentence: 'c', unobservable: 'internal' },
        { key: 'd', page: 'p', section: 's', level: 'SHOULD', sentence: 'd', checks: ['c'] },
      ],
    };
    expect(figures(list, 'MUST')).toEqual({ total: 3, observable: 2, covered: 1, percent: 50 });
    expect(figures(list, 'SHOULD')).toEqual({ total: 1, observable: 1, covered: 1, percent: 100 });
    const text = render([list], new Set(['c']));
    expect(text).toContain('**not covered**');
    expect(text).toContain('*internal*');
    expect(text).toContain('- `b` (p, s): b');
  });
});
