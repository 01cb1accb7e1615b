/**
 * The import graph of the project's TypeScript, read with the compiler's parser (so `import type`,
 * `export … from` and dynamic `import()` all count), for tests that guard the
 * architecture: no import circle, the CLI entering the suite by its front door only, and entry points
 * that do not drag in the CLI or heavy optional parts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Project files (paths relative to the root, `/`-separated) → the project files they import. */
  readonly edges: ReadonlyMap<string, readonly string[]>;
  /** The same, minus `import()` and type-only imports: what loading a module loads at once. */
  readonly staticEdges: ReadonlyMap<string, readonly string[]>;
  /** Project file → the packages it imports statically (`node:` built-ins left out). */
  readonly packages: ReadonlyMap<string, readonly string[]>;
}

/** Whether an import or export declaration is erased from the emitted JavaScript. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return (
      clause !== undefined &&
      ts.isNamedExports(clause) &&
      clause.elements.length > 0 &&
      clause.elements.every((e) => e.isTypeOnly)
    );
  }
  const clause = node.importClause;
  if (clause === undefined) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/**
 * Module specifiers of a file; `dynamic` marks those not loaded with the file itself (`import()`,
 * `import('x').T` types, type-only imports).
 */
function specifiersOf(file: string): { specifier: string; dynamic: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: { specifier: string; dynamic: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, dynamic: typeOnly(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, dynamic: true });
    } else if (ts.isImportTypeNode(node)) {
      const literal = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
      if (literal !== undefined && ts.isStringLiteral(literal)) {
        found.push({ specifier: literal.text, dynamic: true });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(?:ts|mts)$/.test(entry) && !entry.endsWith('.d.ts')) files.push(full);
    }
  };
  walk(path.join(root, folder));
  return files;
}

/** `./x.js` → `./x.ts` (NodeNext style), or a folder's `index.ts`. */
function resolveRelative(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`];
  candidates.push(path.join(base, 'index.ts'));
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The package name of a bare specifier: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const edges = new Map<string, string[]>();
  const staticEdges = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  for (const folder of folders) {
    for (const file of sourceFiles(root, folder)) {
      const all = new Set<string>();
      const loadedAtOnce = new Set<string>();
      const bare = new Set<string>();
      for (const { specifier, dynamic } of specifiersOf(file)) {
        if (specifier.startsWith('.')) {
          const resolved = resolveRelative(file, specifier);
          if (resolved === null) continue;
          all.add(relative(resolved));
          if (!dynamic) loadedAtOnce.add(relative(resolved));
        } else if (!dynamic && !specifier.startsWith('node:')) {
          bare.add(packageOf(specifier));
        }
      }
      edges.set(relative(file), [...all]);
      staticEdges.set(relative(file), [...loadedAtOnce]);
      packages.set(relative(file), [...bare]);
    }
  }
  return { edges, staticEdges, packages };
}

/**
 * Every import circle, each as the list of files around it (first file repeated at the end). One
 * circle per strongly connected component is enough to name the problem; Tarjan's algorithm finds them.
 */
export function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = (edges.get(node) ?? []).includes(node);
    if (component.length > 1 || selfLoop) cycles.push(circleThrough(node, new Set(component), edges));
  };

  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A shortest path from `start` back to itself inside one component, for a readable message. */
function circleThrough(
  start: string,
  component: ReadonlySet<string>,
  edges: ReadonlyMap<string, readonly string[]>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Every project file reachable from `start` (included), following all imports. */
export function reachableFrom(edges: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of edges.get(queue.shift() as string) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}
