/**
 * TypeScript declarations from JSON Schema via json-schema-to-typescript, with furfly's fixed options.
 */
import { compile, type JSONSchema } from 'json-schema-to-typescript';

type JSONSchema4 = Parameters<typeof compile>[0];

/**
 * One exported type per named definition (`$defs` key), plus a root type.
 * The root is compiled as-is; definitions are named by their `$defs` key so names never depend on titles.
 */
export async function schemaToTypes(schema: object, rootName: string, banner: string): Promise<string> {
  return compile(schema as JSONSchema4, rootName, {
    bannerComment: banner,
    // MCP objects are open (`_meta`, extensions): open schemas get an index signature, as the spec intends.
    additionalProperties: true,
    declareExternallyReferenced: true,
    // Array length bounds stay arrays; tuples would make the types awkward for no gain.
    maxItems: -1,
    strictIndexSignatures: false,
    unknownAny: true,
    unreachableDefinitions: true,
    format: true,
    customName: (_schema: JSONSchema, keyNameFromDefinition: string | undefined) => keyNameFromDefinition,
    style: { singleQuote: true, printWidth: 110, trailingComma: 'all' },
  });
}
