/**
 * Limits on the size of a tool definition, checked before a tool enters the registry.
 *
 * Why: a definition comes from an MCP server, which may be hostile or broken. Everything after the
 * registry (the provider request's `JSON.stringify`, change detection, the argument validator) walks
 * the schema recursively, so one tool whose `inputSchema` is nested a few thousand levels deep would
 * make every model request fail with "Maximum call stack size exceeded", naming nobody. A huge but
 * flat definition would instead be sent with every request.
 *
 * The check itself is an explicit-stack walk, so no depth can overflow it, and it stops at the first
 * limit passed, so its cost is bounded by the limits, not by the input.
 */

export interface DefinitionLimits {
  /** Nesting of objects and arrays, the definition object itself being level 1. */
  readonly maxDepth: number;
  /** Objects, arrays and values (keys are not counted separately). */
  readonly maxNodes: number;
  /** Characters of the definition as JSON (counted without whitespace; escapes not expanded). */
  readonly maxChars: number;
}

/**
 * The documented limits (docs/security.md). Real schemas are a few levels and a few KiB; these leave
 * room for generated schemas with big enums while keeping the recursive code after the registry far
 * from the stack limit (a few thousand levels).
 */
export const TOOL_DEFINITION_LIMITS: DefinitionLimits = {
  maxDepth: 100,
  maxNodes: 50_000,
  maxChars: 512 * 1024,
};

/**
 * Why `value` (parsed JSON) is beyond `limits`, as a phrase such as "is nested more than 100 levels
 * deep"; undefined when it is within them.
 */
export function definitionLimitProblem(
  value: unknown,
  limits: DefinitionLimits = TOOL_DEFINITION_LIMITS,
): string | undefined {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  let nodes = 0;
  let chars = 0;
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    nodes++;
    if (nodes > limits.maxNodes) return `has more than ${limits.maxNodes} values`;
    if (current !== null && typeof current === 'object') {
      if (depth > limits.maxDepth) return `is nested more than ${limits.maxDepth} levels deep`;
      chars += 2; // the brackets
      if (Array.isArray(current)) {
        chars += Math.max(0, current.length - 1); // commas
        for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], depth: depth + 1 });
      } else {
        const keys = Object.keys(current);
        chars += Math.max(0, keys.length - 1);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          chars += key.length + 3; // quotes and colon
          pending.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1 });
        }
      }
    } else if (typeof current === 'string') {
      chars += current.length + 2;
    } else {
      chars += String(current).length;
    }
    if (chars > limits.maxChars) return `is larger than ${formatChars(limits.maxChars)} as JSON`;
  }
  return undefined;
}

function formatChars(chars: number): string {
  return chars % 1024 === 0 ? `${chars / 1024} KiB` : `${chars} characters`;
}
