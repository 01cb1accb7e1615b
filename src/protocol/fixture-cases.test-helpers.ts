/**
 * The fixture cases under fixtures/messages/ (layout: docs/schemas.md), one entry per case and protocol
 * version: shared files count once for each version they list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isKnownProtocolVersion, type KnownProtocolVersion } from './versions.js';

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

export interface LoadedCase extends FixtureCase {
  file: string;
  definition: string;
  valid: boolean;
  version: KnownProtocolVersion;
}

export function loadFixtureCases(): LoadedCase[] {
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
          if (!isKnownProtocolVersion(version)) throw new Error(`${rel}: unknown version ${version}`);
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
