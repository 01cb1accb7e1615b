/** docs/conformance.md must list every check id with its level, so no check ships undocumented. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from './checks.js';

const doc = readFileSync(new URL('../../docs/conformance.md', import.meta.url), 'utf8');

describe('docs/conformance.md', () => {
  it.each(ALL_CHECKS.map((check) => [check.id, check] as const))(
    'documents %s with its level',
    (id, check) => {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${id}\` |`));
      expect(row, `no table row for ${id}`).toBeDefined();
      expect(row).toContain(`| ${check.level} |`);
    },
  );

  it('has no two checks with the same id', () => {
    const ids = ALL_CHECKS.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
