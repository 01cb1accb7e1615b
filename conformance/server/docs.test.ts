/** docs/conformance.md must list every check id with its level, so no check ships undocumented. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { erasOf } from './check.js';
import { ALL_CHECKS } from './checks.js';

const doc = readFileSync(new URL('../../docs/conformance.md', import.meta.url), 'utf8');
// Cells are compared trimmed: a markdown formatter may pad the table.
const rows = doc.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));

describe('docs/conformance.md', () => {
  it.each(ALL_CHECKS.map((check) => [check.id, check.level] as const))('documents %s as %s', (id, level) => {
    const row = rows.find((cells) => cells[1] === `\`${id}\``);
    expect(row, `no table row for ${id}`).toBeDefined();
    expect(row?.[2]).toBe(level);
  });

  it('has no two checks with the same id', () => {
    const ids = ALL_CHECKS.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // #16: a check's source names the page of each version it judges, so a failure points at the text that
  // binds the server in that era.
  it.each(ALL_CHECKS.map((check) => [check.id, check] as const))(
    '%s names a spec page of each era it runs in',
    (_id, check) => {
      const eras = erasOf(check);
      if (eras.includes('modern')) expect(check.source).toMatch(/MCP 2026-07-28 /);
      if (eras.includes('legacy'))
        expect(check.source).toMatch(/MCP 2025-(11-25|06-18|03-26) |JSON-RPC 2\.0/);
    },
  );
});
