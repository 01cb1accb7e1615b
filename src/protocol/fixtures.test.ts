/**
 * Runs every fixture under fixtures/messages/ (layout: docs/schemas.md) against `validatorsFor`:
 * valid cases must produce no issues; invalid cases must fail, and every issue must lie at or under the
 * recorded JSON pointer (so a fixture cannot pass by failing somewhere else).
 */
import { describe, expect, it } from 'vitest';
import { loadFixtureCases } from './fixture-cases.test-helpers.js';
import { type Issues, validatorsFor } from './validate.js';
import { KNOWN_PROTOCOL_VERSIONS } from './versions.js';

const cases = loadFixtureCases();

function run(c: (typeof cases)[number]): Issues {
  const validators = validatorsFor(c.version);
  return c.definition === 'message'
    ? validators.message(c.value)
    : validators.definition(c.definition, c.value);
}

function within(pointer: string, expected: string): boolean {
  return pointer === expected || pointer.startsWith(`${expected}/`);
}

describe('fixtures', () => {
  it('cover every version with valid and invalid cases, each invalid one with a pointer', () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) {
      expect(cases.filter((c) => c.version === version && c.valid).length).toBeGreaterThan(80);
      expect(cases.filter((c) => c.version === version && !c.valid).length).toBeGreaterThan(80);
    }
    for (const c of cases) {
      if (!c.valid) expect(typeof c.pointer, `${c.file} ${c.name}`).toBe('string');
    }
  });

  it('have at least three valid and three invalid cases per kind', () => {
    const counts = new Map<string, number>();
    for (const c of cases) {
      const key = `${c.version} ${c.file.split('/').slice(1).join('/')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, count] of counts) expect(count, key).toBeGreaterThanOrEqual(3);
  });

  describe.each(KNOWN_PROTOCOL_VERSIONS)('%s', (version) => {
    const mine = cases.filter((c) => c.version === version);
    it.each(mine.filter((c) => c.valid).map((c) => [`${c.file} ${c.name}`, c] as const))(
      'valid: %s',
      (_, c) => {
        expect(run(c)).toEqual([]);
      },
    );
    it.each(mine.filter((c) => !c.valid).map((c) => [`${c.file} ${c.name}`, c] as const))(
      'invalid: %s',
      (_, c) => {
        const issues = run(c);
        expect(issues.length).toBeGreaterThan(0);
        for (const issue of issues) {
          expect(within(issue.pointer, c.pointer!), `${issue.pointer}: ${issue.message}`).toBe(true);
          expect(issue.message.length).toBeGreaterThan(0);
        }
      },
    );
  });
});
