/**
 * The names of the environment variables a config refers to through `${VAR}`. Those variables were put
 * there for one server or provider; the agent keeps them out of the `bash` tool's environment, where
 * any command could print them (tools/ never sees the config: it receives this list).
 */
import { expandString, isExpandedPath } from './expand.js';
import { type MapNode, walk } from './tree.js';

/**
 * Sorted, without repeats. Looks at the fields where expansion applies, in every server (disabled ones
 * too: their variables are no less secret) and provider, references with a default included.
 * Takes the tree before expansion (`loadConfig` does this and returns the list as `referencedVariables`).
 */
export function referencedVariables(root: MapNode): string[] {
  const names = new Set<string>();
  // expandString looks every referenced name up exactly once: a lookup table that records the
  // names (and knows none of them) lists them, with `$$` and malformed references handled as usual.
  const recorder = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  walk(root, (node, path) => {
    if (node.kind === 'scalar' && typeof node.value === 'string' && isExpandedPath(path)) {
      expandString(node.value, recorder);
    }
  });
  return [...names].sort();
}
