/**
 * Rules of the base protocol judged over every session of the run: that the server says nothing before
 * it answered initialize, what it may send before `notifications/initialized`, the ids of its own requests, the names of `_meta` keys, and (stdio) the
 * UTF-8 encoding of everything it wrote.
 */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { idKey, responseAt, sentAt, serverMessages, serverRequests } from '../run/conversation.js';
import { isObject, type JsonObject, type LoggedMessage } from '../run/session.js';

const BASIC = 'MCP 2025-11-25 basic';
const whole = {
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  judgesWholeRun: true,
  eras: LEGACY_ONLY,
} as const;

/** `_meta` key names: an optional prefix of dot-separated labels and a slash, then a name. */
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const META_KEY = new RegExp(
  `^(?:${LABEL}(?:\\.${LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`,
);
/** Whether a `_meta` key name follows the key name format of the base protocol (2025-06-18 on). */
export function isValidMetaKey(key: string): boolean {
  return META_KEY.test(key);
}

/** Subtrees that hold the server's own data, not protocol objects: a `_meta` there is just a name. */
const DATA_FIELDS = new Set([
  'inputSchema',
  'outputSchema',
  'structuredContent',
  'requestedSchema',
  'arguments',
  'data',
]);

/** Every `_meta` key in a message, with the path of its object (depth-limited). */
function metaKeys(value: unknown, path: string, found: { path: string; key: string }[], depth = 0): void {
  if (depth > 12) return;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) metaKeys(item, `${path}/${index}`, found, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (DATA_FIELDS.has(key)) continue;
    if (key === '_meta' && isObject(child))
      for (const metaKey of Object.keys(child)) found.push({ path: `${path}/_meta`, key: metaKey });
    else metaKeys(child, `${path}/${key}`, found, depth + 1);
  }
}

/**
 * The first server request or notification of a session that came before the server answered the
 * initialize that opened it; null when there is none. Sessions that opened with anything but initialize
 * (the pre-initialize probes send ping first) or whose initialize was never answered prove nothing.
 */
export function messageBeforeInitializeAnswer(log: readonly LoggedMessage[]): JsonObject | null {
  const first = log.find((entry) => entry.direction === 'out');
  if (!first || !isObject(first.message) || first.message.method !== 'initialize') return null;
  const answered = responseAt(log, first.message.id);
  if (answered === null) return null;
  return serverMessages(log).find((entry) => entry.at < answered)?.message ?? null;
}

export const messagesChecks: Check[] = [
  {
    ...whole,
    section: 'lifecycle',
    id: 'lifecycle.initialize-first',
    level: 'MUST',
    title: 'the server sends nothing before it answered initialize',
    requirement: 'The initialization phase MUST be the first interaction between client and server.',
    source: `${BASIC}/lifecycle (Initialization)`,
    async run(ctx) {
      ctx.session();
      let judged = 0;
      for (const session of ctx.sessions) {
        const first = session.log.find((entry) => entry.direction === 'out');
        if (isObject(first?.message) && first.message.method === 'initialize') judged++;
        const early = messageBeforeInitializeAnswer(session.log);
        if (early)
          return fail(
            `the server sent ${String(early.method)} before it answered initialize`,
            "the initialize response as the server's first message",
            brief(early),
          );
      }
      return pass(`${judged} session(s) opened with initialize`);
    },
  },
  {
    ...whole,
    section: 'lifecycle',
    id: 'lifecycle.no-requests-before-initialized',
    level: 'SHOULD',
    title: 'no server request but ping before notifications/initialized',
    requirement:
      'The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.',
    source: `${BASIC}/lifecycle (Initialization)`,
    async run(ctx) {
      ctx.session();
      for (const session of ctx.sessions) {
        const initialized = sentAt(session.log, 'notifications/initialized') ?? session.log.length;
        const early = serverRequests(session.log).find(
          (entry) => entry.at < initialized && entry.message.method !== 'ping',
        );
        if (early)
          return fail(
            `the server sent ${String(early.message.method)} before notifications/initialized`,
            'only ping (and log notifications) before initialized',
            brief(early.message),
          );
      }
      return pass(`${ctx.sessions.length} session(s)`);
    },
  },
  {
    ...whole,
    section: 'jsonrpc',
    id: 'jsonrpc.server-request-ids-unique',
    level: 'MUST',
    title: 'the server never reuses a request id within a session',
    requirement:
      'Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null. The request ID MUST NOT have been previously used by the requestor within the same session.',
    source: `${BASIC} (Requests)`,
    async run(ctx) {
      ctx.session();
      let count = 0;
      for (const session of ctx.sessions) {
        const seen = new Set<string>();
        for (const entry of serverRequests(session.log)) {
          count++;
          const key = idKey(entry.message.id);
          if (seen.has(key))
            return fail(
              `the server sent two requests with the id ${JSON.stringify(entry.message.id)} in one session`,
              'a new id for every request',
              brief(entry.message),
            );
          seen.add(key);
        }
      }
      if (count === 0) throw new NotApplicable('nothing to judge: the server sent no requests in this run');
      return pass(`${count} request(s)`);
    },
  },
  {
    ...whole,
    section: 'jsonrpc',
    // 2026-07-28 basic/index keeps the key name format word for word.
    versions: ['2025-11-25', '2025-06-18', '2026-07-28'],
    eras: BOTH_ERAS,
    id: 'jsonrpc.meta-key-names',
    level: 'MUST',
    title: '_meta key names follow the prefix/name format',
    requirement:
      'Prefix: If specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (-). Name: Unless empty, MUST begin and end with an alphanumeric character ([a-z0-9A-Z]).',
    source: `${BASIC} (General fields, _meta); MCP 2026-07-28 basic/index (General fields, _meta)`,
    async run(ctx) {
      ctx.session();
      const found: { path: string; key: string }[] = [];
      for (const entry of ctx.runLog) if (entry.direction === 'in') metaKeys(entry.message, '', found);
      if (found.length === 0)
        throw new NotApplicable('nothing to judge: no _meta in anything the server sent');
      const bad = found.find((entry) => !isValidMetaKey(entry.key));
      if (bad)
        return fail(
          `the _meta key ${JSON.stringify(bad.key)} (at ${bad.path || '/'}) breaks the key name format`,
          'optional prefix of dot-separated labels and "/", then a name starting and ending alphanumerically',
          JSON.stringify(bad.key),
        );
      return pass(`${found.length} key(s)`);
    },
  },
  {
    ...whole,
    section: 'stdio',
    transports: ['stdio'],
    versions: EVERY_VERSION,
    eras: BOTH_ERAS,
    id: 'stdio.utf-8',
    level: 'MUST',
    title: 'everything on stdout is valid UTF-8',
    requirement: 'MCP uses JSON-RPC to encode messages. JSON-RPC messages MUST be UTF-8 encoded.',
    source: `${BASIC}/transports (introduction); MCP 2026-07-28 basic/transports/index (Messages)`,
    async run(ctx) {
      ctx.session();
      const broken = ctx.probes.find((probe) => probe.invalidUtf8 !== null);
      if (broken)
        return fail('the server wrote bytes that are not UTF-8', 'UTF-8 only', broken.invalidUtf8 ?? '');
      return pass(`${ctx.probes.length} process(es)`);
    },
  },
];
