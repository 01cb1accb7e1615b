/**
 * The architecture as tests over the import graph (docs/architecture.md): no import circle anywhere,
 * the CLI enters the conformance suite by its front door only, and the public entry points load
 * neither the CLI nor the agent nor heavy optional packages.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycles, importGraph } from './import-graph.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const graph = importGraph(root, ['src', 'conformance', 'test-servers', 'bench', 'scripts']);

describe('findCycles', () => {
  it('finds a circle, a self-import, and nothing in a graph without one', () => {
    const circle = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(findCycles(circle)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['e', 'e'],
    ]);
    const tree = new Map([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', []],
    ]);
    expect(findCycles(tree)).toEqual([]);
  });

  it('reads type-only imports too (a circle through types is still a circle)', () => {
    // check.ts names its context's type; the context must not import check.ts back.
    expect(graph.edges.get('conformance/server/check.ts')).toContain('conformance/server/run/context.ts');
    expect(graph.staticEdges.get('conformance/server/check.ts')).not.toContain(
      'conformance/server/run/context.ts',
    );
  });
});

describe('the import graph', () => {
  it('was read (sanity: the CLI entry point and its commands are in it)', () => {
    expect(graph.edges.get('src/cli/main.ts')).toContain('src/cli/commands/conformance.ts');
  });

  it('has no circle', () => {
    const circles = findCycles(graph.edges).map((circle) => circle.join(' → '));
    expect(circles).toEqual([]);
  });

  it('the CLI imports the conformance suite only through conformance/index.ts', () => {
    const backDoors: string[] = [];
    for (const [file, targets] of graph.edges) {
      if (!file.startsWith('src/') || file.includes('.test')) continue;
      for (const target of targets) {
        if (target.startsWith('conformance/') && target !== 'conformance/index.ts') {
          backDoors.push(`${file} → ${target}`);
        }
      }
    }
    expect(backDoors).toEqual([]);
  });
});
