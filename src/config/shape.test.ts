/** The hand-kept shape table must say exactly what schemas/config.schema.json says. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ObjectKind, SHAPES } from './shape.js';

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  $defs?: Record<string, Schema>;
};
const schema = JSON.parse(
  readFileSync(new URL('../../schemas/config.schema.json', import.meta.url), 'utf8'),
) as Schema;
const resolve = (s: Schema): Schema =>
  s.$ref === undefined ? s : schema.$defs![s.$ref.replace('#/$defs/', '')]!;

const schemaFor: Record<ObjectKind, Schema> = {
  root: schema,
  provider: schema.$defs!.Provider!,
  permissions: schema.$defs!.PermissionsConfig!,
  tools: schema.$defs!.ToolsConfig!,
  sandbox: schema.$defs!.OsSandboxConfig!,
  rule: schema.$defs!.PermissionRule!,
  stdio: schema.$defs!.StdioServerConfig!,
  http: schema.$defs!.HttpServerConfig!,
  sandboxLimits: schema.$defs!.SandboxLimits!,
  serverSandboxPolicy: schema.$defs!.ServerSandboxPolicy!,
};

describe('shape table', () => {
  it.each(Object.keys(SHAPES) as ObjectKind[])('%s matches the schema', (kind) => {
    const s = schemaFor[kind];
    expect(s.additionalProperties).toBe(false);
    expect(SHAPES[kind].keys).toEqual(Object.keys(s.properties ?? {}));
    expect(SHAPES[kind].required).toEqual(s.required ?? []);
    const defaults: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(s.properties ?? {})) {
      const d = property.default ?? resolve(property).default;
      if (d !== undefined) defaults[key] = d;
    }
    expect(SHAPES[kind].defaults).toEqual(defaults);
  });
});
