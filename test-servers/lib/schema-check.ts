/**
 * Checks tool arguments against the small JSON Schema subset our tools use (an object root with
 * typed properties, bounds, `required`, `additionalProperties: false`). The servers must report invalid
 * arguments themselves, so they cannot lean on a validator library the client also uses.
 */
// Type aliases rather than interfaces: they fit the generated `Tool['inputSchema']` (an open object).
export type PropertySchema = {
  type: 'string' | 'number' | 'integer' | 'boolean';
  description?: string;
  minimum?: number;
  maximum?: number;
  /** 2026-07-28: mirror this argument into the HTTP header `Mcp-Param-{value}`. */
  'x-mcp-header'?: string;
};

export type ObjectSchema = {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties?: boolean;
};

/** Returns one sentence per problem; empty when the arguments fit the schema. */
export function checkArguments(schema: ObjectSchema, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (!(name in args)) problems.push(`missing required argument "${name}"`);
  }
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties[name];
    if (!property) {
      if (schema.additionalProperties === false) problems.push(`unexpected argument "${name}"`);
      continue;
    }
    const problem = checkProperty(property, value);
    if (problem) problems.push(`argument "${name}" ${problem}`);
  }
  return problems;
}

function checkProperty(schema: PropertySchema, value: unknown): string | undefined {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a ${schema.type}`;
      if (schema.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (schema.minimum !== undefined && value < schema.minimum) return `must be >= ${schema.minimum}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `must be <= ${schema.maximum}`;
      return undefined;
    }
  }
}
