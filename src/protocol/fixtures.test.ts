/**
 * Runs every fixture under fixtures/messages/ (layout: docs/schemas.md) against `validatorsFor`:
 * valid cases must produce no issues; invalid cases must fail, and every issue must lie at or under the
 * recorded JSON pointer (so a fixture cannot pass by failing somewhere else).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Issues, validatorsFor } from './validate.js';
import { isProtocolVersion, PROTOCOL_VERSIONS, type ProtocolVersion } from './versions.js';

const fixturesRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/messages');

interface FixtureCase {
  name: string;
  definition?: string;
  pointer?: string;
  value: unknown;
}

interface FixtureFile {
  versions?: string[];
  definition: string;
  cases: FixtureCase[];
}

interface LoadedCase extends FixtureCase {
  file: string;
  definition: string;
  valid: boolean;
  version: ProtocolVersion;
}

function loadAll(): LoadedCase[] {
  const out: LoadedCase[] = [];
  for (const scope of readdirSync(fixturesRoot).sort()) {
    for (const validity of ['valid', 'invalid'] as const) {
      const dir = path.join(fixturesRoot, scope, validity);
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.json'));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        const rel = `${scope}/${validity}/${name}`;
        const file = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as FixtureFile;
        const versions = scope === 'shared' ? (file.versions ?? []) : [scope];
        if (versions.length === 0) throw new Error(`${rel}: a shared fixture file must list its versions`);
        for (const version of versions) {
          if (!isProtocolVersion(version)) throw new Error(`${rel}: unknown version ${version}`);
          for (const c of file.cases) {
            out.push({
              ...c,
              file: rel,
              definition: c.definition ?? file.definition,
              valid: validity === 'valid',
              version,
            });
          }
        }
      }
    }
  }
  return out;
}

const cases = loadAll();

function run(c: LoadedCase): Issues {
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
    for (const version of PROTOCOL_VERSIONS) {
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

  describe.each(PROTOCOL_VERSIONS)('%s', (version) => {
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
