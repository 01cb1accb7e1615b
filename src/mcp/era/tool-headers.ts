/**
 * Mirroring tool parameters into HTTP headers (streamable-http, "Custom Headers from Tool Parameters"):
 * which parameters a tool annotates with `x-mcp-header`, whether the annotations are valid, and the
 * header values a call's arguments give. Also the Base64 sentinel encoding `Mcp-Name` shares.
 */

/** One annotated parameter: the chain of `properties` keys leading to it, and the header name part. */
export interface HeaderParameter {
  readonly path: readonly string[];
  readonly header: string;
}

export type ToolHeaderCheck =
  | { ok: true; parameters: readonly HeaderParameter[] }
  | { ok: false; reason: string };

/** RFC 9110 `tchar`: the characters of a field-name token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords under which a sub-schema is not statically reachable through `properties` alone. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  '$defs',
  'definitions',
];

/**
 * The annotated parameters of an `inputSchema`, or why the annotations make the tool invalid: an empty or
 * non-token name, a duplicate (case-insensitively), a non-primitive type, or an annotation not reachable
 * through `properties` keys alone.
 */
export function checkToolHeaders(inputSchema: unknown): ToolHeaderCheck {
  const parameters: HeaderParameter[] = [];
  const problems: string[] = [];
  walk(inputSchema, [], true, parameters, problems);
  const seen = new Set<string>();
  for (const { header } of parameters) {
    const key = header.toLowerCase();
    if (seen.has(key)) problems.push(`x-mcp-header "${header}" is used twice`);
    seen.add(key);
  }
  return problems.length > 0 ? { ok: false, reason: problems[0]! } : { ok: true, parameters };
}

function walk(
  schema: unknown,
  path: string[],
  reachable: boolean,
  out: HeaderParameter[],
  problems: string[],
): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) walk(item, path, false, out, problems);
    return;
  }
  const node = schema as Record<string, unknown>;
  const where = path.length === 0 ? 'the schema root' : `"${path.join('.')}"`;
  if ('x-mcp-header' in node) {
    const header = node['x-mcp-header'];
    if (!reachable || path.length === 0) {
      problems.push(`x-mcp-header at ${where} is not reachable through properties alone`);
    } else if (typeof header !== 'string' || !TOKEN.test(header)) {
      problems.push(`x-mcp-header ${JSON.stringify(header)} at ${where} is not an HTTP field-name token`);
    } else if (typeof node.type !== 'string' || !PRIMITIVE_TYPES.has(node.type)) {
      problems.push(
        `x-mcp-header "${header}" at ${where} is on a parameter that is not a string, integer or boolean`,
      );
    } else {
      out.push({ path: [...path], header });
    }
  }
  const properties = node.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const [key, sub] of Object.entries(properties)) walk(sub, [...path, key], reachable, out, problems);
  }
  for (const keyword of UNREACHABLE_KEYWORDS) {
    const sub = node[keyword];
    if (sub === undefined) continue;
    if (typeof sub === 'object' && sub !== null && !Array.isArray(sub) && isSchemaMap(keyword)) {
      for (const value of Object.values(sub)) walk(value, path, false, out, problems);
    } else walk(sub, path, false, out, problems);
  }
  // `$ref` targets are not followed: an annotation behind one is unreachable by definition, and one in
  // `$defs` is reported above.
}

function isSchemaMap(keyword: string): boolean {
  return (
    keyword === 'patternProperties' ||
    keyword === 'dependentSchemas' ||
    keyword === '$defs' ||
    keyword === 'definitions'
  );
}

/** The `Mcp-Param-{Name}` headers for one call's arguments; a missing or null value gives no header. */
export function parameterHeaders(
  parameters: readonly HeaderParameter[],
  args: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of parameters) {
    let value: unknown = args;
    for (const key of path) {
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    const text = headerText(value);
    if (text !== undefined) headers[`Mcp-Param-${header}`] = encodeHeaderValue(text);
  }
  return headers;
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

/**
 * A header value as the spec's Value Encoding says: as it is when it is visible ASCII without leading or
 * trailing whitespace and does not look like the sentinel, else `=?base64?{UTF-8 in Base64}?=`.
 */
export function encodeHeaderValue(value: string): string {
  const looksEncoded = value.startsWith('=?base64?') && value.endsWith('?=');
  if (PLAIN.test(value) && !looksEncoded) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
