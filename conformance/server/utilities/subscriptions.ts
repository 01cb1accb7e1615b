/**
 * Subscriptions (MCP 2026-07-28 basic/patterns/subscriptions): `subscriptions/listen` is acknowledged
 * first, and everything on the subscription carries its id.
 */
import { META_KEYS } from '../../../src/protocol/versions.js';
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

const ACK = 'notifications/subscriptions/acknowledged';

/**
 * The filter the suite asks for: every list change the server declares, and nothing else. A server that
 * declares none gets an empty filter ("Omitting a field is equivalent to not subscribing"): asking for
 * notifications the server said it never sends would judge a subscription it never offered.
 */
export function declaredListFilter(ctx: CheckContext): JsonObject {
  const caps = ctx.capabilities;
  const filter: JsonObject = {};
  const declares = (name: string) => isObject(caps[name]) && (caps[name] as JsonObject).listChanged === true;
  if (declares('tools')) filter.toolsListChanged = true;
  if (declares('prompts')) filter.promptsListChanged = true;
  if (declares('resources')) filter.resourcesListChanged = true;
  return filter;
}

/** The notifications the subscription produced before (and including) its acknowledgement, in order. */
async function listen(
  ctx: CheckContext,
  id: string,
): Promise<{ notifications: JsonObject[]; answer?: JsonObject }> {
  const session = ctx.modern();
  const params = { notifications: declaredListFilter(ctx), _meta: session.meta() };
  const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params };
  const channel = session.session.channel;
  if (channel instanceof HttpChannel) {
    const exchange = await postModern(channel.target, body, {
      timeoutMs: ctx.timeoutMs,
      stopWhen: (message) => isObject(message) && message.method === ACK,
    });
    const messages = exchange.messages.filter(isObject);
    const answer = messages.find((m) => m.id === id && ('result' in m || 'error' in m));
    return {
      notifications: messages.filter((m) => typeof m.method === 'string' && !('id' in m)),
      ...(answer ? { answer } : {}),
    };
  }
  const { inbound, answer: answerOf } = await listenOverStdio(session.session, body, ACK, ctx.timeoutMs);
  await session.notify('notifications/cancelled', { requestId: id, reason: 'conformance check done' });
  const notifications = inbound().filter((m) => typeof m.method === 'string' && !('id' in m));
  const answer = answerOf();
  return { notifications, ...(answer ? { answer } : {}) };
}

export const subscriptionsChecks: readonly Check[] = [
  {
    id: 'subscriptions.listen-acknowledged',
    section: 'subscriptions',
    level: 'MUST',
    title: 'subscriptions/listen is acknowledged first, with the subscription id',
    requirement:
      "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send any notification on the subscription before it.",
    source: 'MCP 2026-07-28 basic/patterns/subscriptions (Acknowledgment; Receiving Notifications)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const id = `furfly-subscription-${Date.now()}`;
      const { notifications, answer } = await listen(ctx, id);
      // The MUST orders the messages of a subscription that was opened; no sentence obliges a server to
      // open one, so a refusal (whatever its code) leaves nothing to judge.
      if (answer && isObject(answer.error))
        return skip(
          `not bound: the server refused subscriptions/listen (${brief(answer.error, 120)}), and the acknowledgement order applies only to a subscription it opened`,
        );
      const ours = notifications.filter((m) => m.method !== 'notifications/message');
      const first = ours[0];
      if (!first)
        throw new CouldNotTell(`no ${ACK} arrived`, `${ACK} carrying the subscription id`, 'nothing');
      const tagOf = (m: JsonObject) => {
        const meta = isObject(m.params) && isObject(m.params._meta) ? m.params._meta : {};
        return meta[META_KEYS.subscriptionId];
      };
      if (first.method !== ACK)
        return fail(
          `the first notification was ${String(first.method)}, not the acknowledgement`,
          ACK,
          brief(first),
        );
      const untagged = ours.filter((m) => tagOf(m) !== id);
      if (untagged.length > 0) {
        return fail(
          'a notification on the subscription does not carry its id',
          `_meta["${META_KEYS.subscriptionId}"] = ${JSON.stringify(id)}`,
          brief(untagged[0]),
        );
      }
      return pass();
    },
  },
];
