/**
 * Generated code for each MCP protocol version folder `schemas/mcp/<version>/`:
 * - `mcp/<version>/types.ts`: one exported type per definition, plus `McpDefinitions` (name -> type);
 * - `mcp/<version>/validators.js` + `.d.ts`: one precompiled Ajv standalone function per definition;
 * - `mcp/<version>/methods.ts`: method name -> request/notification, params and result definition names and
 *   which side sends it, as values (validation by method) and as types (what the code is typed against).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type Bundle, bundleVersion, type SchemaObject } from './bundle.js';
import { VALIDATOR_DTS } from './config.js';
import type { GeneratedFile } from './files.js';
import { generatedHeader } from './header.js';
import { createGeneratorAjv, standaloneModule } from './standalone.js';
import { schemaToTypes } from './types.js';

const VERSION_FOLDER = /^\d{4}-\d{2}-\d{2}$/;

export function mcpVersions(repoRoot: string): string[] {
  return readdirSync(path.join(repoRoot, 'schemas', 'mcp'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && VERSION_FOLDER.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

export async function generateMcp(repoRoot: string): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const version of mcpVersions(repoRoot)) {
    files.push(...(await generateVersion(repoRoot, version)));
  }
  return files;
}

async function generateVersion(repoRoot: string, version: string): Promise<GeneratedFile[]> {
  const bundle = bundleVersion(repoRoot, version);
  const header = generatedHeader(bundle.sources);
  const names = Object.keys(bundle.schema.$defs);
  const dir = `mcp/${version}`;
  return [
    { path: `${dir}/types.ts`, content: await typesFor(bundle, names, header) },
    { path: `${dir}/validators.js`, content: validatorsFor(bundle, names, header) },
    { path: `${dir}/validators.d.ts`, content: validatorsDts(names, header) },
    { path: `${dir}/methods.ts`, content: methodsFor(bundle, names, header) },
  ];
}

async function typesFor(bundle: Bundle, names: string[], header: string): Promise<string> {
  // A synthetic root whose properties reference every definition, so each one is emitted under its own
  // name, and the root itself becomes a handy name -> type map.
  const root = {
    title: 'McpDefinitions',
    description: 'Every named definition of this protocol version, by name.',
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, { $ref: `#/$defs/${name}` }])),
    required: names,
    additionalProperties: false,
    $defs: bundle.schema.$defs,
  };
  return schemaToTypes(root, 'McpDefinitions', header);
}

function validatorsFor(bundle: Bundle, names: string[], header: string): string {
  const ajv = createGeneratorAjv();
  ajv.addSchema(bundle.schema);
  const exports = Object.fromEntries(names.map((name) => [name, `${bundle.schema.$id}#/$defs/${name}`]));
  return [
    header,
    '// One named export per schema definition; each is an Ajv standalone validator (errors on `.errors`).',
    standaloneModule(ajv, exports).trimEnd(),
    '',
  ].join('\n');
}

function validatorsDts(names: string[], header: string): string {
  return [
    header,
    "import type * as T from './types.js';",
    '',
    VALIDATOR_DTS,
    ...names.map((name) => `export declare const ${name}: StandaloneValidator<T.${name}>;`),
    '',
  ].join('\n');
}

/** Which side of a connection sends a message: read from the schema's ClientRequest, ServerRequest, ClientNotification and ServerNotification unions. */
type Sender = 'client' | 'server' | 'both';

interface MethodEntry {
  method: string;
  message: string;
  params: string;
  /** Whether the message must carry `params` (otherwise they may be absent). */
  paramsRequired: boolean;
  result?: string;
  sender: Sender;
}

/** The definition names an `anyOf` union of `$ref`s lists (e.g. `ClientRequest`), or [] when absent. */
function unionMembers(bundle: Bundle, name: string): string[] {
  const union = bundle.schema.$defs[name];
  if (union === undefined) return [];
  const members = union.anyOf;
  if (!Array.isArray(members)) throw new Error(`${name}: must be an anyOf of $refs`);
  return members.map((member) => {
    const ref = (member as SchemaObject | null)?.$ref;
    if (typeof ref !== 'string') throw new Error(`${name}: every member must be a $ref`);
    return ref.replace('#/$defs/', '');
  });
}

function senderOf(message: string, fromClient: string[], fromServer: string[]): Sender {
  const client = fromClient.includes(message);
  const server = fromServer.includes(message);
  if (client && server) return 'both';
  if (client) return 'client';
  if (server) return 'server';
  throw new Error(`${message}: listed in neither the client nor the server union, so nobody sends it`);
}

/**
 * Reads `method: { const }` and `params: { $ref }` from every concrete request and notification, and who
 * sends it from the `ClientRequest`/`ServerRequest`/`ClientNotification`/`ServerNotification` unions.
 * Emits the tables as values (for validation by method) and as types (what the code is typed against).
 */
function methodsFor(bundle: Bundle, names: string[], header: string): string {
  const requests: MethodEntry[] = [];
  const notifications: MethodEntry[] = [];
  const clientRequests = unionMembers(bundle, 'ClientRequest');
  const serverRequests = unionMembers(bundle, 'ServerRequest');
  const clientNotifications = unionMembers(bundle, 'ClientNotification');
  const serverNotifications = unionMembers(bundle, 'ServerNotification');
  for (const name of names) {
    const def = bundle.schema.$defs[name]!;
    const props = def.properties as Record<string, SchemaObject> | undefined;
    const method = props?.method?.const;
    if (typeof method !== 'string') continue;
    const paramsRef = props?.params?.$ref;
    if (typeof paramsRef !== 'string')
      throw new Error(`${name}: params must be a $ref to a named definition`);
    const params = paramsRef.replace('#/$defs/', '');
    const paramsRequired = Array.isArray(def.required) && def.required.includes('params');
    if (name.endsWith('Request')) {
      // Convention: FooRequest is answered by FooResult, or by EmptyResult when there is no FooResult.
      const named = name.replace(/Request$/, 'Result');
      const result = names.includes(named) ? named : 'EmptyResult';
      const sender = senderOf(name, clientRequests, serverRequests);
      requests.push({ method, message: name, params, paramsRequired, result, sender });
    } else if (name.endsWith('Notification')) {
      const sender = senderOf(name, clientNotifications, serverNotifications);
      notifications.push({ method, message: name, params, paramsRequired, sender });
    } else {
      throw new Error(`${name}: a definition with a method must end in Request or Notification`);
    }
  }
  const byMethod = (a: MethodEntry, b: MethodEntry) =>
    a.method < b.method ? -1 : a.method > b.method ? 1 : 0;
  requests.sort(byMethod);
  notifications.sort(byMethod);
  const line = (entry: MethodEntry) =>
    `  '${entry.method}': { message: '${entry.message}', params: '${entry.params}', paramsRequired: ${entry.paramsRequired}${
      entry.result === undefined ? '' : `, result: '${entry.result}'`
    }, sender: '${entry.sender}' },`;
  const paramsType = (entry: MethodEntry) =>
    entry.paramsRequired ? `T.${entry.params}` : `T.${entry.params} | undefined`;
  const requestType = (entry: MethodEntry) =>
    `  '${entry.method}': { params: ${paramsType(entry)}; result: T.${entry.result}; sender: '${entry.sender}' };`;
  const notificationType = (entry: MethodEntry) =>
    `  '${entry.method}': { params: ${paramsType(entry)}; sender: '${entry.sender}' };`;
  return [
    header,
    "import type * as T from './types.js';",
    '',
    '/** Every definition name of this version, in schema order. */',
    'export const DEFINITIONS = [',
    ...names.map((name) => `  '${name}',`),
    '] as const;',
    '',
    '/** Request method -> request, params and result definitions, and which side sends it. */',
    'export const REQUESTS = {',
    ...requests.map(line),
    '} as const;',
    '',
    '/** Notification method -> notification and params definitions, and which side sends it. */',
    'export const NOTIFICATIONS = {',
    ...notifications.map(line),
    '} as const;',
    '',
    '/** Request method -> the types of its params and result, and which side sends it. */',
    'export interface RequestTypes {',
    ...requests.map(requestType),
    '}',
    '',
    '/** Notification method -> the type of its params, and which side sends it. */',
    'export interface NotificationTypes {',
    ...notifications.map(notificationType),
    '}',
    '',
  ].join('\n');
}
