/**
 * What a `subscriptions/listen` stream may carry (MCP 2026-07-28 basic/patterns/subscriptions "Opening a
 * Stream"; server/utilities/logging "Per-request log level"): only the notification types the client
 * asked for, and never log messages, even when the listen request itself names a log level.
 *
 * One probe serves both checks: a listen asking for the list changes the server declares, with a log level in its
 * `_meta`, watched for a short while after the acknowledgement, on the shared connection. The suite asks
 * for log messages nowhere else, so logging.no-message-without-level leaves log messages on this stream
 * (tagged with the probe's subscription id) to logging.request-scoped.
 */
import { META_KEYS } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  CouldNotTell,
  fail,
  MODERN_ONLY,
  MODERN_VERSIONS,
  pass,
  skip,
} from '../check.js';
import { HttpChannel } from '../probe/channel.js';
import { postModern } from '../probe/modern-post.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject } from '../run/session.js';
import { listenOverStdio } from './listen-stdio.js';
import { declaredListFilter } from './subscriptions.js';

const ACK = 'notifications/subscriptions/acknowledged';
/** How long the stream is watched after the acknowledgement: a server that pushes extras does so at once. */
const WATCH_MS = 200;
/** Over HTTP the stream is read for this long in all (or the step, when shorter). */
const HTTP_READ_MS = 1000;

/** The list-change notification each filter field asks for. */
const LIST_CHANGED: Record<string, string> = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
};

/**
 * The notification methods a stream with this filter may carry: the acknowledgement, cancellation, and
 * the list changes asked for. The filter asks only for what the server declares (declaredListFilter), so
 * a server is never judged on notifications it said it does not send.
 */
function allowedBy(filter: JsonObject): Set<string> {
  const allowed = new Set([ACK, 'notifications/cancelled']);
  for (const [field, method] of Object.entries(LIST_CHANGED)) if (filter[field] === true) allowed.add(method);
  return allowed;
}

interface ListenProbe {
  /** The filter the probe asked with. */
  filter: JsonObject;
  /** Notifications on the stream, in order (the acknowledgement included). */
  notifications: JsonObject[];
  /** The error the listen request got, when it was refused. */
  error?: JsonObject;
}

/** The id prefix of the probe's listen request; logging.no-message-without-level leaves its stream to us. */
export const LISTEN_SCOPE_ID_PREFIX = 'furfly-listen-scope-';

function listenProbe(ctx: CheckContext): Promise<ListenProbe> {
  return ctx.memo('modern:listen-scope', async () => {
    const modern = ctx.modern();
    const session = modern.session;
    const channel = session.channel;
    const id = `${LISTEN_SCOPE_ID_PREFIX}${Date.now()}`;
    const filter = declaredListFilter(ctx);
    const params = { notifications: filter, _meta: modern.meta({}, 'debug') };
    const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params };
    if (channel instanceof HttpChannel) {
      const exchange = await postModern(channel.target, body, {
        timeoutMs: Math.min(ctx.timeoutMs, HTTP_READ_MS),
      });
      const messages = exchange.messages.filter(isObject);
      const answer = messages.find((m) => m.id === id && isObject(m.error));
      return {
        filter,
        notifications: messages.filter((m) => typeof m.method === 'string' && !('id' in m)),
        ...(answer ? { error: answer.error as JsonObject } : {}),
      };
    }
    // stdio: one pipe for everything, so the stream is what carries the subscription id (and, for log
    // messages, anything that arrives while the probe watches: the suite sends nothing else meanwhile).
    const { inbound, answer: answerOf } = await listenOverStdio(session, body, ACK, ctx.timeoutMs);
    if (answerOf() === undefined) await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    await session.notify('notifications/cancelled', { requestId: id, reason: 'conformance check done' });
    const tag = (m: JsonObject) =>
      isObject(m.params) && isObject(m.params._meta) ? m.params._meta[META_KEYS.subscriptionId] : undefined;
    const notifications = inbound().filter(
      (m) =>
        typeof m.method === 'string' &&
        !('id' in m) &&
        (tag(m) === id || m.method === ACK || m.method === 'notifications/message'),
    );
    const answer = answerOf();
    return {
      filter,
      notifications,
      ...(answer && isObject(answer.error) ? { error: answer.error } : {}),
    };
  });
}

/** The probe, or a skip when the server has no subscriptions/listen. */
async function probed(ctx: CheckContext): Promise<ListenProbe | string> {
  let probe: ListenProbe;
  try {
    probe = await listenProbe(ctx);
  } catch (error) {
    throw new CouldNotTell(
      `the listen probe failed: ${errorText(error)}`,
      'a subscriptions/listen stream',
      'none',
    );
  }
  // No sentence obliges a server to open a subscription: a refusal leaves nothing on a stream to judge.
  if (probe.error)
    return `not bound: the server refused subscriptions/listen (${brief(probe.error, 120)}), so no stream was opened`;
  if (!probe.notifications.some((m) => m.method === ACK))
    throw new CouldNotTell(`no ${ACK} arrived`, ACK, brief(probe.notifications, 160));
  return probe;
}

export const listenScopeChecks: readonly Check[] = [
  {
    id: 'subscriptions.only-requested',
    section: 'subscriptions',
    level: 'MUST',
    title: 'a listen stream carries only the notification types the client asked for',
    requirement:
      'The client sends a subscriptions/listen request with a notifications filter specifying which event types it wants to receive. The server MUST NOT send notification types the client has not explicitly requested.',
    source: 'MCP 2026-07-28 basic/patterns/subscriptions (Opening a Stream)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const probe = await probed(ctx);
      if (typeof probe === 'string') return skip(probe);
      // Log messages on the stream are logging.request-scoped's to judge.
      const allowed = allowedBy(probe.filter);
      const extra = probe.notifications.filter(
        (m) => !allowed.has(String(m.method)) && m.method !== 'notifications/message',
      );
      if (extra.length > 0)
        return fail(
          `the stream carried ${extra.length} notification(s) of a type not asked for`,
          `only ${[...allowed].join(', ')} (the filter: ${brief(probe.filter)})`,
          brief(extra[0]),
        );
      return pass();
    },
  },
  {
    id: 'logging.request-scoped',
    section: 'logging',
    level: 'MUST',
    title: 'no log messages on a subscriptions/listen stream',
    requirement:
      'notifications/message is request-scoped: the server MUST NOT deliver it on a subscriptions/listen stream or on any stream other than the one carrying the response to the request that set the log level.',
    source: 'MCP 2026-07-28 server/utilities/logging (Requesting Log Messages: Per-request log level)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const probe = await probed(ctx);
      if (typeof probe === 'string') return skip(probe);
      // The probe's connection carries the listen request alone: over HTTP everything in its response is
      // on the stream, and on stdio no other request is there for a log message to belong to.
      const logs = probe.notifications.filter((m) => m.method === 'notifications/message');
      if (logs.length > 0)
        return fail(
          'a log message was delivered on the subscriptions/listen stream (whose request named a log level)',
          'no notifications/message on a listen stream',
          brief(logs[0]),
        );
      return pass();
    },
  },
];
