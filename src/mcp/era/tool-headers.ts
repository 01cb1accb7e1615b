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
 * The rule of server/tools "x-mcp-header" an annotation breaks. An empty name and one with a control
 * character are not tokens either; each problem names its most specific rule, once.
 */
export type ToolHeaderRule =
  | 'not-empty'
  | 'token'
  | 'no-control'
  | 'unique'
  | 'primitive'
  | 'safe-integer'
  | 'reachable';

export interface ToolHeaderProblem {
  readonly rule: ToolHeaderRule;
  readonly message: string;
}

/** The integers a header can carry exactly (−2^53+1 to 2^53−1). */
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

/**
 * The annotated parameters of an `inputSchema`, or why the annotations make the tool invalid: an empty or
 * non-token name, a duplicate (case-insensitively), a non-primitive type, an integer parameter whose
 * declared bounds or values leave the safe range, or an annotation not reachable through `properties`
 * keys alone.
 */
export function checkToolHeaders(inputSchema: unknown): ToolHeaderCheck {
  const { parameters, problems } = inspect(inputSchema);
  return problems.length > 0 ? { ok: false, reason: problems[0]!.message } : { ok: true, parameters };
}

/** Every rule the `x-mcp-header` annotations of an `inputSchema` break, in schema order (none: valid). */
export function toolHeaderProblems(inputSchema: unknown): readonly ToolHeaderProblem[] {
  return inspect(inputSchema).problems;
}

function inspect(inputSchema: unknown): { parameters: HeaderParameter[]; problems: ToolHeaderProblem[] } {
  const parameters: HeaderParameter[] = [];
  const problems: ToolHeaderProblem[] = [];
  walk(inputSchema, [], true, parameters, problems);
  const seen = new Set<string>();
  for (const { header } of parameters) {
    const key = header.toLowerCase();
    if (seen.has(key)) problems.push({ rule: 'unique', message: `x-mcp-header "${header}" is used twice` });
    seen.add(key);
  }
  return { parameters, problems };
}

function walk(
  schema: unknown,
  path: string[],
  reachable: boolean,
  out: HeaderParameter[],
  problems: ToolHeaderProblem[],
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
    const unsafe = node.type === 'integer' ? unsafeIntegerIn(node) : undefined;
    if (!reachable || path.length === 0) {
      problems.push({
        rule: 'reachable',
        message: `x-mcp-header at ${where} is not reachable through properties alone`,
      });
    } else if (typeof header !== 'string' || !TOKEN.test(header)) {
      const rule: ToolHeaderRule =
        header === ''
          ? 'not-empty'
          : typeof header === 'string' && hasControl(header)
            ? 'no-control'
            : 'token';
      problems.push({
        rule,
        message: `x-mcp-header ${JSON.stringify(header)} at ${where} is not an HTTP field-name token`,
      });
    } else if (typeof node.type !== 'string' || !PRIMITIVE_TYPES.has(node.type)) {
      problems.push({
        rule: 'primitive',
        message: `x-mcp-header "${header}" at ${where} is on a parameter that is not a string, integer or boolean`,
      });
    } else if (unsafe !== undefined) {
      problems.push({
        rule: 'safe-integer',
        message: `x-mcp-header "${header}" at ${where} is on an integer parameter whose ${unsafe} leaves the safe range (±(2^53−1))`,
      });
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

/** Whether the text holds a C0 control or DEL: what the no-control rule names (CR and LF among them). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Which declared bound or value of an integer schema lies outside the safe range, if any. An integer
 * parameter without bounds passes: the rule is about the values, and the schema says nothing about them.
 */
function unsafeIntegerIn(node: Record<string, unknown>): string | undefined {
  const outside = (value: unknown) => typeof value === 'number' && Math.abs(value) > SAFE_MAX;
  for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'const', 'default']) {
    if (outside(node[keyword])) return keyword;
  }
  for (const keyword of ['enum', 'examples']) {
    const values = node[keyword];
    if (Array.isArray(values) && values.some(outside)) return keyword;
  }
  return undefined;
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
