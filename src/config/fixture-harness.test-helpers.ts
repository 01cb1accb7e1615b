/**
 * Lays a fixture case (fixtures/config/<case>/) out as a real home and project folder in a temp dir:
 *   <tmp>/home/config.yaml               <- user.yaml      (FURFLY_HOME=<tmp>/home)
 *   <tmp>/project/.furflycode/config.yaml <- project.yaml  (cwd = <tmp>/project, which also has .git/)
 *   <tmp>/project/custom.yaml             <- custom.yaml
 * options.json may hold { "env": {...}, "configFile": "custom.yaml" }.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/config',
);
/** The temp folder's path is replaced by this in expected-error.txt. */
export const TMP_PLACEHOLDER = '<tmp>';

export interface FixtureCase {
  readonly name: string;
  readonly dir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly configFile?: string;
  readonly expectedJson?: unknown;
  readonly expectedError?: string;
}

export interface LaidOut {
  readonly tmp: string;
  readonly home: string;
  readonly project: string;
  readonly cleanup: () => void;
}

export function listCases(): FixtureCase[] {
  return readdirSync(FIXTURES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => readCase(d.name))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function readCase(name: string): FixtureCase {
  const dir = path.join(FIXTURES_DIR, name);
  const file = (f: string): string | undefined =>
    existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : undefined;
  const options = JSON.parse(file('options.json') ?? '{}') as {
    env?: Record<string, string>;
    configFile?: string;
  };
  const expected = file('expected.json');
  const expectedError = file('expected-error.txt');
  return {
    name,
    dir,
    env: options.env ?? {},
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(expected === undefined ? {} : { expectedJson: JSON.parse(expected) as unknown }),
    ...(expectedError === undefined ? {} : { expectedError }),
  };
}

export function layOut(c: FixtureCase): LaidOut {
  const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-config-')));
  const home = path.join(tmp, 'home');
  const project = path.join(tmp, 'project');
  mkdirSync(home);
  mkdirSync(path.join(project, '.git'), { recursive: true });
  const copy = (from: string, to: string): void => {
    if (!existsSync(path.join(c.dir, from))) return;
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(path.join(c.dir, from), to);
  };
  copy('user.yaml', path.join(home, 'config.yaml'));
  copy('project.yaml', path.join(project, '.furflycode', 'config.yaml'));
  copy('custom.yaml', path.join(project, 'custom.yaml'));
  return { tmp, home, project, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

export function withPlaceholder(text: string, tmp: string): string {
  return text.split(tmp).join(TMP_PLACEHOLDER);
}
