/**
 * The bash grammar (tree-sitter-bash, run by web-tree-sitter's WASM build), loaded once per process.
 *
 * Loading is asynchronous (the WASM modules are compiled), parsing afterwards is synchronous. The
 * permission service awaits `loadBashGrammar()` in its `prepare()` step and parses with
 * `loadedBashGrammar()` inside the synchronous decision; when the grammar is not loaded (yet, or it
 * failed), the caller must ask instead of guessing.
 *
 * The parsed tree is copied into plain objects (`SyntaxNode`) and the WASM tree freed at once, so no
 * caller can leak WASM memory and the rest of the checker does not depend on web-tree-sitter's API.
 */
import { createRequire } from 'node:module';

export interface SyntaxNode {
  /** The grammar's node type (`command`, `word`, …) or, for anonymous nodes, the token (`;`, `&&`). */
  type: string;
  named: boolean;
  /** The field this node fills in its parent (`name`, `argument`, `redirect`, …). */
  field: string | undefined;
  /** Source text of the node. */
  text: string;
  /** Offsets into the parsed source, in UTF-16 code units (JavaScript string indices). */
  start: number;
  end: number;
  /** An ERROR node or a token the parser had to invent (MISSING). */
  broken: boolean;
  children: SyntaxNode[];
}

export interface BashGrammar {
  parse(source: string): SyntaxNode;
}

/** Deeper trees are refused: the copy is recursive, and no honest command nests this deep. */
export const MAX_SYNTAX_DEPTH = 200;

export class SyntaxTooDeepError extends Error {}

let loading: Promise<BashGrammar> | undefined;
let loaded: BashGrammar | undefined;
let failure: string | undefined;

/** Resolves once the grammar is ready; rejects with the reason when it cannot be loaded. */
export function loadBashGrammar(): Promise<BashGrammar> {
  loading ??= load().then(
    (grammar) => {
      loaded = grammar;
      return grammar;
    },
    (error: unknown) => {
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    },
  );
  return loading;
}

/** The grammar when `loadBashGrammar()` has finished, else undefined. */
export function loadedBashGrammar(): BashGrammar | undefined {
  return loaded;
}

/** Why loading failed, if it did. */
export function bashGrammarFailure(): string | undefined {
  return failure;
}

async function load(): Promise<BashGrammar> {
  const { Parser, Language } = await import('web-tree-sitter');
  // Resolved through the packages, not a path relative to this file, so the built CLI in dist/ finds
  // them wherever node_modules is.
  const require = createRequire(import.meta.url);
  const runtimeWasm = require.resolve('web-tree-sitter/tree-sitter.wasm');
  await Parser.init({ locateFile: () => runtimeWasm });
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(source) {
      const tree = parser.parse(source);
      if (!tree) throw new Error('the bash grammar returned no tree');
      try {
        return copy(tree.rootNode, undefined, 0);
      } finally {
        tree.delete();
      }
    },
  };
}

interface TreeSitterNode {
  type: string;
  isNamed: boolean;
  isError: boolean;
  isMissing: boolean;
  text: string;
  startIndex: number;
  endIndex: number;
  childCount: number;
  child(index: number): TreeSitterNode | null;
  fieldNameForChild(index: number): string | null;
}

function copy(node: TreeSitterNode, field: string | undefined, depth: number): SyntaxNode {
  if (depth > MAX_SYNTAX_DEPTH) throw new SyntaxTooDeepError('the command is nested too deeply to check');
  const children: SyntaxNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child) children.push(copy(child, node.fieldNameForChild(i) ?? undefined, depth + 1));
  }
  return {
    type: node.type,
    named: node.isNamed,
    field,
    text: node.text,
    start: node.startIndex,
    end: node.endIndex,
    broken: node.isError || node.isMissing,
    children,
  };
}
