/**
 * OpenTelemetry trace context in `_meta` (MCP 2026-07-28 basic, `_meta`): the reserved keys `traceparent`,
 * `tracestate` and `baggage` are optional, but when a server sends them their values must follow W3C
 * Trace Context and W3C Baggage. Judged on the `_meta` of every message the server sent in the run (a
 * request's or notification's `params._meta`, a result's `result._meta`); a server that sends no trace
 * context is not judged.
 *
 * The formats are checked as the W3C texts define them, leniently where they leave room: a `traceparent`
 * of a version other than 00 may carry more fields, `tracestate` and `baggage` may hold empty list
 * members and optional spaces around them.
 */
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
} from '../check.js';
import { isObject, type JsonObject } from '../run/session.js';

/** W3C Trace Context traceparent: version-traceid-parentid-flags, lower-case hex, ff never a version. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** W3C Trace Context tracestate list member: key=value (value printable ASCII without `,` and `=`). */
const TRACESTATE_MEMBER =
  /^[a-z0-9][a-z0-9_\-*/]{0,255}(@[a-z][a-z0-9_\-*/]{0,13})?=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** W3C Baggage list member: token=value, then optional `;property` parts. */
const BAGGAGE_MEMBER =
  /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=[ \t]*[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*[ \t]*(;.*)?$/;

function traceparentIssue(value: string): string | null {
  const match = TRACEPARENT.exec(value);
  if (!match) return 'is not version-traceid-parentid-flags in lower-case hex';
  const [, version, traceId, parentId, , rest] = match;
  if (version === 'ff') return 'has the forbidden version ff';
  if (version === '00' && rest !== undefined) return 'carries fields after the flags in version 00';
  if (/^0+$/.test(traceId ?? '')) return 'has an all-zero trace id';
  if (/^0+$/.test(parentId ?? '')) return 'has an all-zero parent id';
  return null;
}

function listIssue(value: string, member: RegExp, max: number): string | null {
  const members = value
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (members.length > max) return `has ${members.length} list members (at most ${max})`;
  const bad = members.find((m) => !member.test(m));
  return bad === undefined ? null : `has a malformed list member ${JSON.stringify(bad.slice(0, 60))}`;
}

/** What is wrong with the trace context keys of one `_meta` object. */
export function traceContextIssues(meta: unknown): string[] {
  if (!isObject(meta)) return [];
  const issues: string[] = [];
  const judge = (key: string, rule: (value: string) => string | null) => {
    if (!(key in meta)) return;
    const value = meta[key];
    const issue = typeof value === 'string' ? rule(value) : `is a ${typeof value}, not a string`;
    if (issue) issues.push(`_meta.${key} ${issue}`);
  };
  judge('traceparent', traceparentIssue);
  judge('tracestate', (v) => listIssue(v, TRACESTATE_MEMBER, 32));
  judge('baggage', (v) => listIssue(v, BAGGAGE_MEMBER, 180));
  return issues;
}

/** The `_meta` a server message carries at its top: in params (requests, notifications) or result. */
function metaOf(message: JsonObject): unknown {
  if (isObject(message.params)) return message.params._meta;
  if (isObject(message.result)) return message.result._meta;
  return undefined;
}

const KEYS = ['traceparent', 'tracestate', 'baggage'];

export const traceContextChecks: readonly Check[] = [
  {
    id: 'jsonrpc.trace-context-format',
    section: 'jsonrpc',
    level: 'MUST',
    versions: MODERN_VERSIONS,
    eras: MODERN_ONLY,
    transports: BOTH_TRANSPORTS,
    judgesWholeRun: true,
    title: 'traceparent, tracestate and baggage in _meta follow W3C Trace Context and Baggage',
    requirement:
      'When present, their values MUST follow W3C Trace Context and W3C Baggage formats respectively.',
    source: 'MCP 2026-07-28 basic (_meta: OpenTelemetry trace context)',
    async run(ctx) {
      ctx.session();
      let seen = 0;
      for (const session of ctx.sessions)
        for (const entry of session.log) {
          if (entry.direction !== 'in') continue;
          const messages = Array.isArray(entry.message) ? entry.message : [entry.message];
          for (const message of messages) {
            if (!isObject(message)) continue;
            const meta = metaOf(message);
            if (!isObject(meta) || !KEYS.some((key) => key in meta)) continue;
            seen += 1;
            const issues = traceContextIssues(meta);
            if (issues.length > 0)
              return fail(
                `trace context in a server message's _meta is malformed: ${issues.join('; ')}`,
                'W3C Trace Context traceparent/tracestate and W3C Baggage values',
                brief(message, 200),
              );
          }
        }
      if (seen === 0) throw new NotApplicable('nothing to judge: the server sent no trace context in _meta');
      return pass(`${seen} message(s) with trace context checked`);
    },
  },
];
