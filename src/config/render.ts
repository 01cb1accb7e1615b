/**
 * `furfly config show` output: the merged config as YAML (or JSON), secrets masked, and optionally each
 * value's origin as a trailing comment. A small emitter of our own, because the origin comments sit on
 * exactly the lines of the values they describe.
 *
 * The output is read on a terminal, and config values and keys come from files a cloned repository
 * can write: quoted strings are JSON strings spelt with `terminalSafeJson` (control, bidi and invisible
 * characters as `\uXXXX`, which YAML's double-quoted style reads back as the same characters), and
 * the file names in origin comments pass `terminalLine`.
 */

import type { Redactor } from '../redaction/index.js';
import { terminalLine, terminalSafeJson } from '../terminal/sanitize.js';
import { formatOrigin, type Origin } from './origin.js';
import { displayScalar, toMaskedPlain } from './secrets.js';
import { type ConfigNode, type MapNode, type PathSegment, primaryOrigin, toPointer, walk } from './tree.js';

export interface RenderOptions {
  /** Append `# file:line:col` (or `# default`) to every value. */
  readonly origins: boolean;
  /** Every secret the config holds (see `configSecrets`), masked wherever else it appears. */
  readonly redactor?: Redactor;
  /** With `origins`: a note after the key of an entry, by JSON pointer (`/mcp_servers/github`). Plain text. */
  readonly notes?: ReadonlyMap<string, string>;
  /** With `origins`: comment lines after the config (YAML), or extra top-level fields (JSON). */
  readonly footer?: readonly string[];
  readonly extraJson?: Readonly<Record<string, unknown>>;
}

export function renderYaml(tree: MapNode, options: RenderOptions): string {
  const lines = renderMap(tree, [], '', options);
  if (options.origins && options.footer !== undefined)
    lines.push(...options.footer.map((l) => `# ${terminalLine(l)}`));
  return lines.length === 0 ? '{}\n' : `${lines.join('\n')}\n`;
}

/** `{ config }` or, with origins, `{ config, origins: { "/json/pointer": "file:line:col" | "default" } }`. */
export function renderJson(tree: MapNode, options: RenderOptions): string {
  const config = toMaskedPlain(tree, [], options.redactor);
  if (!options.origins) return `${terminalSafeJson(config, 2)}\n`;
  const origins: Record<string, string> = {};
  walk(tree, (node, path) => {
    if (isLeaf(node)) origins[toPointer(path)] = formatOrigin(primaryOrigin(node));
  });
  return `${terminalSafeJson({ config, origins, ...options.extraJson }, 2)}\n`;
}

function renderMap(
  map: MapNode,
  path: readonly PathSegment[],
  pad: string,
  options: RenderOptions,
): string[] {
  const lines: string[] = [];
  for (const e of map.entries) {
    const childPath = [...path, e.key];
    const head = `${pad}${formatKey(e.key)}:`;
    const note = options.origins ? options.notes?.get(toPointer(childPath)) : undefined;
    if (isLeaf(e.value))
      lines.push(`${head} ${leafText(e.value, childPath, options)}${comment(e.value, options)}`);
    else
      lines.push(
        note === undefined ? head : `${head}  # ${terminalLine(note)}`,
        ...renderBlock(e.value, childPath, `${pad}  `, options),
      );
  }
  return lines;
}

function renderBlock(
  node: ConfigNode,
  path: readonly PathSegment[],
  pad: string,
  options: RenderOptions,
): string[] {
  if (node.kind === 'map') return renderMap(node, path, pad, options);
  if (node.kind === 'scalar') return [];
  const lines: string[] = [];
  node.items.forEach((item, i) => {
    const itemPath = [...path, i];
    if (isLeaf(item)) {
      lines.push(`${pad}- ${leafText(item, itemPath, options)}${comment(item, options)}`);
      return;
    }
    // A nested block: render it two columns in, then put the dash where the first line's indent was.
    const block = renderBlock(item, itemPath, `${pad}  `, options);
    if (block.length > 0) block[0] = `${pad}- ${block[0]!.slice(pad.length + 2)}`;
    lines.push(...block);
  });
  return lines;
}

function isLeaf(node: ConfigNode): boolean {
  if (node.kind === 'scalar') return true;
  return node.kind === 'map' ? node.entries.length === 0 : node.items.length === 0;
}

function leafText(node: ConfigNode, path: readonly PathSegment[], options: RenderOptions): string {
  if (node.kind === 'map') return '{}';
  if (node.kind === 'list') return '[]';
  return formatScalar(displayScalar(node, path, options.redactor));
}

function comment(node: ConfigNode, options: RenderOptions): string {
  return options.origins ? `  # ${terminalLine(describeOrigin(primaryOrigin(node)))}` : '';
}

function describeOrigin(origin: Origin): string {
  return formatOrigin(origin);
}

const PLAIN_STRING = /^[A-Za-z0-9_./~][A-Za-z0-9_./~@+%()=,: -]*$/;
const LOOKS_TYPED =
  /^(?:true|false|yes|no|on|off|y|n|null|~|[-+]?(?:\d[\d_]*)?\.?\d.*|[-+]?\.(?:inf|nan)|0[xo].*)$/i;

export function formatScalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value !== 'string') return String(value);
  const plain = PLAIN_STRING.test(value) && !LOOKS_TYPED.test(value) && !/: |:$| $/.test(value);
  return plain ? value : terminalSafeJson(value);
}

function formatKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) && !LOOKS_TYPED.test(key) ? key : terminalSafeJson(key);
}
