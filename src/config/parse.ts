/**
 * YAML text -> located config tree. Keeps a position for every key and value, and turns YAML
 * syntax errors into config errors with file:line:col (never with the source text around them,
 * which may hold a secret).
 */
import {
  type Alias,
  type Document,
  type ErrorCode,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';
import type { ConfigError } from './errors.js';
import type { FileOrigin } from './origin.js';
import type { ConfigNode, MapEntry, MapNode, Scalar } from './tree.js';

export type ParseResult = { ok: true; root: MapNode } | { ok: false; errors: ConfigError[] };

/**
 * Bounds on the work one config file can cause (documented in docs/config.md). A real config has a few
 * hundred values; these leave two orders of magnitude of room and keep loading well under a second and
 * 100 MB for any file within them (the slowest case, thousands of unknown keys each reported with a
 * suggestion, is the reason the token budget is not higher).
 */
export const CONFIG_LIMITS = {
  /** Bytes of one file (checked by the loader before reading). */
  maxBytes: 1024 * 1024,
  /** YAML tokens (scalars, indicators, spaces, line breaks): checked first, by the linear lexer. */
  maxTokens: 50_000,
  /** Values in the tree, counting every copy an alias makes ("billion laughs" and its slower cousins). */
  maxValues: 50_000,
  /** Alias uses. */
  maxAliases: 1000,
  /** Nesting of maps and lists, aliases included (an alias can refer to its own anchor). */
  maxDepth: 64,
} as const;

export function parseConfigText(file: string, text: string): ParseResult {
  const start = { file, line: 1, col: 1 };
  if (!withinTokenBudget(text)) {
    return {
      ok: false,
      errors: [
        {
          origin: start,
          message: `the file has more than ${CONFIG_LIMITS.maxTokens} YAML tokens; a config never needs that many, so it was not read`,
        },
      ],
    };
  }
  const lineCounter = new LineCounter();
  // uniqueKeys is off because the library checks it in quadratic time (a map of 20 000 keys takes
  // seconds); TreeBuilder finds repeated keys with a set instead.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const at = (offset: number): FileOrigin => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };

  if (doc.errors.length > 0 || doc.warnings.length > 0) {
    // The parser often reports one mistake several times at the same place; the first says it best.
    const byPlace = new Map<string, ConfigError>();
    for (const e of doc.errors) {
      const origin = at(e.pos[0]);
      const place = `${origin.line}:${origin.col}`;
      if (!byPlace.has(place))
        byPlace.set(place, { origin, message: `YAML syntax error: ${describeYamlError(e.code)}` });
    }
    // Warnings are errors here: an unresolved tag (`OTHER: !hunter2`) loads as an empty value, so a
    // secret would be silently lost and an empty token sent instead.
    for (const w of doc.warnings) {
      const origin = at(w.pos[0]);
      const place = `${origin.line}:${origin.col}`;
      if (!byPlace.has(place))
        byPlace.set(place, { origin, message: `YAML problem: ${describeYamlError(w.code)}` });
    }
    const position = (e: ConfigError): number => {
      const o = e.origin as FileOrigin;
      return o.line * 1e6 + o.col;
    };
    return { ok: false, errors: [...byPlace.values()].sort((a, b) => position(a) - position(b)) };
  }

  // An empty file (or one holding only comments) is a layer with nothing in it.
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    return { ok: true, root: { kind: 'map', origins: [{ file, line: 1, col: 1 }], entries: [] } };
  }

  const errors: ConfigError[] = [];
  const builder = new TreeBuilder(doc, at, errors);
  let root: ConfigNode;
  try {
    root = builder.build(doc.contents);
  } catch (error) {
    if (!(error instanceof OverBudget)) throw error;
    return { ok: false, errors: [{ origin: error.origin, message: error.message }] };
  }
  if (root.kind !== 'map') {
    errors.push({
      origin: at(doc.contents.range?.[0] ?? 0),
      message: `the top level must be a map of keys (providers, max_iterations, permissions, tools, mcp_servers), not a ${root.kind === 'list' ? 'list' : 'single value'}`,
    });
  }
  if (errors.length > 0 || root.kind !== 'map') return { ok: false, errors };
  return { ok: true, root };
}

/**
 * Fixed wording per yaml error code. The library's own messages quote the source ("Could not resolve
 * tag: !s3cr3t", "Block scalar header includes extra characters: |token"), and that text may be a
 * secret, so they are never shown; the position points at the place instead.
 */
const YAML_ERROR_WORDING: Record<ErrorCode, string> = {
  ALIAS_PROPS: 'an alias cannot have a tag or anchor',
  BAD_ALIAS: 'an alias refers to an anchor that is not defined before it',
  BAD_DIRECTIVE: 'a % directive is not valid (a value starting with % must be quoted)',
  BAD_DQ_ESCAPE:
    'a double-quoted string has an invalid escape sequence (use single quotes for a literal backslash)',
  BAD_INDENT: 'the indentation is wrong',
  BAD_PROP_ORDER: 'an anchor or tag is in the wrong place',
  BAD_SCALAR_START: 'a plain value cannot start with this character; put the value in quotes',
  BLOCK_AS_IMPLICIT_KEY: 'a key is followed by a nested block on the same line, or the indentation is wrong',
  BLOCK_IN_FLOW: 'a block value cannot appear inside [ ] or { }',
  DUPLICATE_KEY: 'a key appears twice in the same map',
  IMPOSSIBLE: 'the YAML could not be read',
  KEY_OVER_1024_CHARS: 'a key is longer than 1024 characters',
  MISSING_CHAR: 'a closing quote, bracket or brace is missing',
  MULTILINE_IMPLICIT_KEY: 'a key must be on a single line (check the indentation)',
  MULTIPLE_ANCHORS: 'a value has more than one anchor',
  MULTIPLE_DOCS: 'the file holds more than one YAML document',
  MULTIPLE_TAGS: 'a value has more than one tag',
  NON_STRING_KEY: 'keys must be plain names',
  RESOURCE_EXHAUSTION: 'the YAML expands too much',
  TAB_AS_INDENT: 'tabs cannot be used for indentation',
  TAG_RESOLVE_FAILED:
    'a value starts with ! and was read as a YAML tag; put the value in quotes (a secret starting with ! must be quoted)',
  UNEXPECTED_TOKEN:
    'unexpected characters here (after a | or > block marker only indentation or chomping is allowed; quote values with special characters)',
  BAD_COLLECTION_TYPE: 'a tag does not fit the kind of value it is on',
};

function describeYamlError(code: ErrorCode): string {
  return YAML_ERROR_WORDING[code] ?? 'the YAML could not be read';
}

/** The lexer is linear and allocates little, so it sizes the file up before the parser builds anything. */
function withinTokenBudget(text: string): boolean {
  let tokens = 0;
  for (const _token of new Lexer().lex(text)) {
    if (++tokens > CONFIG_LIMITS.maxTokens) return false;
  }
  return true;
}

/** Building stops at the first limit passed: going on would only do the work the limit prevents. */
class OverBudget extends Error {
  constructor(
    message: string,
    readonly origin: FileOrigin,
  ) {
    super(message);
  }
}

class TreeBuilder {
  private aliasUses = 0;
  private values = 0;
  private anchors: Map<Alias, Node | undefined> | undefined;

  constructor(
    private readonly doc: Document,
    private readonly at: (offset: number) => FileOrigin,
    private readonly errors: ConfigError[],
  ) {}

  /**
   * `usedAt` is where the outermost alias being expanded was written: a limit passed inside the copy is
   * reported there, where the reader can see the cause.
   */
  build(node: Node | null | undefined, fallbackOffset = 0, depth = 0, usedAt?: FileOrigin): ConfigNode {
    const origin = this.at(node?.range?.[0] ?? fallbackOffset);
    if (++this.values > CONFIG_LIMITS.maxValues) {
      throw new OverBudget(
        `the YAML expands to more than ${CONFIG_LIMITS.maxValues} values (through aliases); a config never needs that many, so it was not read`,
        usedAt ?? origin,
      );
    }
    if (depth > CONFIG_LIMITS.maxDepth) {
      throw new OverBudget(
        `the YAML nests maps and lists (aliases included) more than ${CONFIG_LIMITS.maxDepth} levels deep; it was not read`,
        usedAt ?? origin,
      );
    }
    if (node === null || node === undefined) return { kind: 'scalar', value: null, origin };
    if (isAlias(node)) {
      if (++this.aliasUses > CONFIG_LIMITS.maxAliases) {
        throw new OverBudget(
          `the YAML uses more than ${CONFIG_LIMITS.maxAliases} aliases; a config never needs that many, so it was not read`,
          origin,
        );
      }
      const target = this.resolve(node);
      if (target === undefined) {
        this.errors.push({ origin, message: 'YAML alias could not be resolved' });
        return { kind: 'scalar', value: null, origin };
      }
      // The value is the anchored one, but errors should point at the place that used it.
      return relocate(this.build(target, fallbackOffset, depth + 1, usedAt ?? origin), origin);
    }
    if (isScalar(node)) return { kind: 'scalar', value: toScalar(node.value), origin };
    if (isSeq(node)) {
      return {
        kind: 'list',
        origins: [origin],
        items: node.items.map((item) => this.build(item as Node, node.range?.[0], depth + 1, usedAt)),
      };
    }
    if (isMap(node)) {
      const entries: MapEntry[] = [];
      const keys = new Set<string>();
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyOrigin = this.at(keyNode?.range?.[0] ?? node.range?.[0] ?? 0);
        if (!isScalar(keyNode) || keyNode.value === null || keyNode.value === '') {
          this.errors.push({
            origin: keyOrigin,
            message: 'keys must be plain names, not empty or nested values',
          });
          continue;
        }
        const key = String(keyNode.value);
        if (keys.has(key)) {
          this.errors.push({
            origin: keyOrigin,
            message: `YAML syntax error: ${describeYamlError('DUPLICATE_KEY')}`,
          });
          continue;
        }
        keys.add(key);
        entries.push({
          key,
          keyOrigin,
          value: this.build(pair.value as Node | null, keyNode.range?.[1], depth + 1, usedAt),
        });
      }
      return { kind: 'map', origins: [origin], entries };
    }
    this.errors.push({ origin, message: 'unsupported YAML node' });
    return { kind: 'scalar', value: null, origin };
  }

  /**
   * The anchored node an alias refers to: the last node with that anchor before the alias, in document
   * order (what `Alias.resolve` does, but that walks the whole document on every call). One walk here
   * answers every alias of the file.
   */
  private resolve(alias: Alias): Node | undefined {
    if (!this.anchors) {
      const anchors = new Map<Alias, Node | undefined>();
      const latest = new Map<string, Node>();
      visit(this.doc, {
        Node: (_key, node) => {
          if (isAlias(node)) anchors.set(node, latest.get(node.source));
          else if (typeof node.anchor === 'string' && node.anchor !== '') latest.set(node.anchor, node);
        },
      });
      this.anchors = anchors;
    }
    return this.anchors.get(alias);
  }
}

function toScalar(value: unknown): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  // Big integers and other exotic scalars are kept as text; the validator will say what it expected.
  return String(value);
}

function relocate(node: ConfigNode, origin: FileOrigin): ConfigNode {
  switch (node.kind) {
    case 'scalar':
      return { ...node, origin };
    case 'list':
      return { ...node, origins: [origin] };
    case 'map':
      return { ...node, origins: [origin] };
  }
}
