import { describe, expect, it } from 'vitest';
import { grepTool, readFileTool } from './builtins/index.js';
import { definitionLimitProblem, TOOL_DEFINITION_LIMITS } from './definition-limits.js';

function nested(levels: number): unknown {
  let schema: unknown = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

describe('definitionLimitProblem', () => {
  it('accepts ordinary definitions', () => {
    for (const tool of [grepTool, readFileTool]) {
      expect(definitionLimitProblem({ name: tool.name, inputSchema: tool.inputSchema })).toBeUndefined();
    }
    // 49 schema levels: 98 JSON levels under the definition object, within 100.
    expect(definitionLimitProblem({ name: 't', inputSchema: nested(49) })).toBeUndefined();
  });

  it('refuses nesting past the depth limit, however deep, without overflowing itself', () => {
    expect(definitionLimitProblem({ name: 't', inputSchema: nested(50) })).toBe(
      `is nested more than ${TOOL_DEFINITION_LIMITS.maxDepth} levels deep`,
    );
    // Far deeper than any recursive walk could go.
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(definitionLimitProblem(deep)).toMatch(/nested more than/);
  });

  it('refuses too many values and too much text', () => {
    const wide = { enum: Array.from({ length: 60_000 }, (_, i) => i) };
    expect(definitionLimitProblem(wide)).toBe('has more than 50000 values');
    expect(definitionLimitProblem({ description: 'x'.repeat(600 * 1024) })).toBe(
      'is larger than 512 KiB as JSON',
    );
  });

  it('counts characters as JSON.stringify would for plain ASCII data', () => {
    const value = { a: [1, 'two', true, null], b: { c: 'd' } };
    const length = JSON.stringify(value).length;
    const limits = { maxDepth: 10, maxNodes: 100 };
    expect(definitionLimitProblem(value, { ...limits, maxChars: length })).toBeUndefined();
    expect(definitionLimitProblem(value, { ...limits, maxChars: length - 1 })).toBeDefined();
  });
});
