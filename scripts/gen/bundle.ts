/**
 * Bundles one MCP version's schema into a single self-contained document.
 *
 * Layout rule (see docs/schemas.md): `schemas/mcp/<version>/schema.json` lists every definition of that
 * version in `$defs`. A definition shared by several versions is written once in `schemas/mcp/shared/*.json`
 * and the version lists it as an alias `{ "$ref": "../shared/<file>.json#/$defs/<SameName>" }`.
 * Bundling replaces each alias by the shared body and rewrites every cross-file `$ref` to `#/$defs/<Name>`,
 * so the bundle means exactly what the files mean (with `$id`-relative resolution) but needs no loader.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

export interface Bundle {
  schema: SchemaObject & { $id: string; $defs: Record<string, SchemaObject> };
  /** Every schema file that contributed (repo-relative), for the generated header. */
  sources: string[];
}

const REF = /^(?<file>[^#]*)#\/\$defs\/(?<name>[A-Za-z0-9_]+)$/;

function readJson(file: string): SchemaObject {
  return JSON.parse(readFileSync(file, 'utf8')) as SchemaObject;
}

function isObject(value: Json | undefined): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep copy with every `$ref` rewritten to point inside the bundle. Records, per referenced name, the file
 * the reference points into (resolved against `file`), so aliases can be checked to mean the same thing.
 */
function localise(value: Json, file: string, where: string, referenced: Map<string, Set<string>>): Json {
  if (Array.isArray(value)) return value.map((item) => localise(item, file, where, referenced));
  if (!isObject(value)) return value;
  const out: SchemaObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') {
      const match = REF.exec(child);
      if (match?.groups === undefined) throw new Error(`${where}: unsupported $ref ${child}`);
      const name = match.groups.name!;
      const target = match.groups.file ? path.posix.join(path.posix.dirname(file), match.groups.file) : file;
      const targets = referenced.get(name) ?? new Set<string>();
      targets.add(`${target} (from ${where})`);
      referenced.set(name, targets);
      out[key] = `#/$defs/${name}`;
    } else {
      out[key] = localise(child, file, where, referenced);
    }
  }
  return out;
}

export function bundleVersion(repoRoot: string, version: string): Bundle {
  const versionFile = path.join('schemas', 'mcp', version, 'schema.json');
  const versionPosix = `schemas/mcp/${version}/schema.json`;
  const root = readJson(path.join(repoRoot, versionFile));
  if (typeof root.$id !== 'string' || !isObject(root.$defs)) {
    throw new Error(`${versionFile}: needs a string $id and $defs`);
  }
  const sources = new Set<string>([versionFile]);
  const sharedCache = new Map<string, SchemaObject>();
  const defs: Record<string, SchemaObject> = {};
  /** Where each definition of the bundle really comes from (the version file or a shared file). */
  const origin = new Map<string, string>();
  const referenced = new Map<string, Set<string>>();

  for (const [name, def] of Object.entries(root.$defs)) {
    if (!isObject(def)) throw new Error(`${versionFile}: $defs/${name} is not an object`);
    const alias = typeof def.$ref === 'string' && Object.keys(def).length === 1 ? REF.exec(def.$ref) : null;
    if (alias?.groups !== undefined && alias.groups.file !== '') {
      if (alias.groups.name !== name) {
        throw new Error(`${versionFile}: $defs/${name} must alias a shared definition of the same name`);
      }
      const sharedFile = path.posix.join('schemas', 'mcp', version, alias.groups.file ?? '');
      let shared = sharedCache.get(sharedFile);
      if (shared === undefined) {
        shared = readJson(path.join(repoRoot, sharedFile));
        sharedCache.set(sharedFile, shared);
        sources.add(sharedFile);
      }
      const body = isObject(shared.$defs) ? shared.$defs[name] : undefined;
      if (!isObject(body)) throw new Error(`${sharedFile}: has no $defs/${name} (aliased by ${versionFile})`);
      defs[name] = localise(body, sharedFile, `${sharedFile}#/$defs/${name}`, referenced) as SchemaObject;
      origin.set(name, sharedFile);
    } else {
      defs[name] = localise(def, versionPosix, `${versionPosix}#/$defs/${name}`, referenced) as SchemaObject;
      origin.set(name, versionPosix);
    }
  }
  // A reference must mean in the bundle what it means in the files: a shared definition may only refer to
  // shared definitions the version aliases unchanged (otherwise the version must write its own copy).
  const problems: string[] = [];
  for (const [name, targets] of [...referenced].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const target of targets) {
      const file = target.slice(0, target.indexOf(' (from '));
      if (!origin.has(name))
        problems.push(`${name} is referenced but not listed in $defs ${target.slice(file.length)}`);
      // The version file's own references reach shared bodies through its aliases, which is always faithful.
      else if (file !== versionPosix && origin.get(name) !== file) {
        problems.push(
          `${name} ${target.slice(file.length)} points into ${file}, but the version takes it from ${origin.get(name)}`,
        );
      }
    }
  }
  if (problems.length > 0) throw new Error(`${versionFile}:\n  ${problems.join('\n  ')}`);
  return {
    schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: root.$id, $defs: defs },
    sources: [...sources].sort(),
  };
}
