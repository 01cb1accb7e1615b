import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_NAMES, builtinTools } from './index.js';

describe('BUILTIN_TOOL_NAMES', () => {
  it('lists exactly the built-in tools, in the order the model sees them', () => {
    expect(builtinTools().map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_NAMES]);
  });
});
