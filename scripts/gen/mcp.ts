/**
 * Generated code for each MCP protocol version folder `schemas/mcp/<version>/`:
 * - `mcp/<version>/types.ts`: one exported type per definition, plus `McpDefinitions` (name -> type);
 * - `mcp/<version>/validators.js` + `.d.ts`: one precompiled Ajv standalone function per definition;
 * - `mcp/<version>/methods.ts`: method name -> request/notification, params and result definition names and
 *   which side sends it, as values (validation by method) and as types (what the code is typed against);
 *   from 2026-07-28 also the input requests a server embeds in an `InputRequiredResult`.
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
    // A union that matches nothing (`{ "not": {} }`) is the type `never`, not an open object.
    $defs: Object.fromEntries(
      Object.entries(bundle.schema.$defs).map(([name, def]) => [
        name,
        isNothing(def) ? { ...def, tsType: 'never' } : def,
      ]),
    ),
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
  /**
   * The request may be answered by an `InputRequiredResult` instead of its result (2026-07-28 multi
   * round-trip): read from its params, which accept the `inputResponses` of the retry.
   */
  inputRequired?: boolean;
  sender?: Sender;
}

/** The four unions every version lists, as the specification's schema.ts does. */
const SENDER_UNIONS = ['ClientRequest', 'ServerRequest', 'ClientNotification', 'ServerNotification'];

function isNothing(def: SchemaObject): boolean {
  const not = def.not;
  return typeof not === 'object' && not !== null && !Array.isArray(not) && Object.keys(not).length === 0;
}

/**
 * The definition names an `anyOf` union of `$ref`s lists (e.g. `ClientRequest`). A union that matches
 * nothing is written `{ "not": {} }` (2026-07-28's `ServerRequest`: servers send no requests); the four
 * sender unions must be present, so a forgotten one cannot silently mean "nobody sends this".
 */
function unionMembers(bundle: Bundle, name: string): string[] {
  const union = bundle.schema.$defs[name];
  if (union === undefined) {
    if (!SENDER_UNIONS.includes(name)) return [];
    throw new Error(`${name}: every version must list it (write { "not": {} } when nothing belongs to it)`);
  }
  if (isNothing(union)) return [];
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
  const inputRequests: MethodEntry[] = [];
  const clientRequests = unionMembers(bundle, 'ClientRequest');
  const serverRequests = unionMembers(bundle, 'ServerRequest');
  const clientNotifications = unionMembers(bundle, 'ClientNotification');
  const serverNotifications = unionMembers(bundle, 'ServerNotification');
  // 2026-07-28: what a server asks of the client inside an InputRequiredResult (absent before).
  const embeddedInputRequests = unionMembers(bundle, 'InputRequest');
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
      if (embeddedInputRequests.includes(name)) {
        if (clientRequests.includes(name) || serverRequests.includes(name))
          throw new Error(`${name}: an input request is not also a JSON-RPC request`);
        inputRequests.push({ method, message: name, params, paramsRequired, result });
        continue;
      }
      const sender = senderOf(name, clientRequests, serverRequests);
      const paramsProps = bundle.schema.$defs[params]?.properties as Record<string, SchemaObject> | undefined;
      const inputRequired = paramsProps?.inputResponses !== undefined;
      if (inputRequired && !names.includes('InputRequiredResult'))
        throw new Error(`${name}: its params take inputResponses, but there is no InputRequiredResult`);
      requests.push({ method, message: name, params, paramsRequired, result, inputRequired, sender });
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
  inputRequests.sort(byMethod);
  const line = (entry: MethodEntry) =>
    `  '${entry.method}': { message: '${entry.message}', params: '${entry.params}', paramsRequired: ${entry.paramsRequired}${
      entry.result === undefined ? '' : `, result: '${entry.result}'`
    }${entry.inputRequired ? ', inputRequired: true' : ''}${entry.sender === undefined ? '' : `, sender: '${entry.sender}'`} },`;
  const paramsType = (entry: MethodEntry) =>
    entry.paramsRequired ? `T.${entry.params}` : `T.${entry.params} | undefined`;
  const resultType = (entry: MethodEntry) =>
    entry.inputRequired ? `T.${entry.result} | T.InputRequiredResult` : `T.${entry.result}`;
  const requestType = (entry: MethodEntry) =>
    `  '${entry.method}': { params: ${paramsType(entry)}; result: ${resultType(entry)}; sender: '${entry.sender}' };`;
  const notificationType = (entry: MethodEntry) =>
    `  '${entry.method}': { params: ${paramsType(entry)}; sender: '${entry.sender}' };`;
  const inputRequestType = (entry: MethodEntry) =>
    `  '${entry.method}': { params: ${paramsType(entry)}; result: T.${entry.result} };`;
  // Only versions with input requests get the two extra tables, so older versions' output is unchanged.
  const inputTables =
    embeddedInputRequests.length === 0
      ? []
      : [
          '/**',
          ' * Input request method -> request, params and response definitions: what a server may ask of the client',
          " * inside an InputRequiredResult (not JSON-RPC requests; the answer goes into the retry's inputResponses).",
          ' */',
          'export const INPUT_REQUESTS = {',
          ...inputRequests.map(line),
          '} as const;',
          '',
          "/** Input request method -> the types of its params and of the client's response. */",
          'export interface InputRequestTypes {',
          ...inputRequests.map(inputRequestType),
          '}',
          '',
        ];
  return [
    header,
    "import type * as T from './types.js';",
    '',
    '/** Every definition name of this version, in schema order. */',
    'export const DEFINITIONS = [',
    ...names.map((name) => `  '${name}',`),
    '] as const;',
    '',
    '/**',
    ' * Request method -> request, params and result definitions, and which side sends it; `inputRequired`',
    ' * marks a request that may instead be answered by an InputRequiredResult (2026-07-28).',
    ' */',
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
    ...inputTables,
  ].join('\n');
}
