/**
 * A `subscriptions/listen` request over stdio, where one pipe carries everything: the request is sent and
 * the inbound messages are watched until the acknowledgement (or a reply, which means a refusal) arrives.
 * Shared by the subscriptions and listen-scope probes, which judge what they see differently.
 */
import { isObject, type JsonObject, type Session } from '../run/session.js';

export interface StdioListen {
  /** The messages the server sent since the request, in order. */
  inbound(): JsonObject[];
  /** The reply to the listen request, once one came (a listen that is accepted stays open). */
  answer(): JsonObject | undefined;
}

export async function listenOverStdio(
  session: Session,
  body: JsonObject,
  ack: string,
  timeoutMs: number,
): Promise<StdioListen> {
  const mark = session.log.length;
  let answer: JsonObject | undefined;
  session.requestRaw(body, timeoutMs).then(
    (reply) => {
      answer = reply.message;
    },
    () => {},
  );
  const inbound = () =>
    session.log
      .slice(mark)
      .filter((entry) => entry.direction === 'in')
      .map((entry) => entry.message)
      .filter(isObject);
  const started = performance.now();
  while (performance.now() - started < timeoutMs && answer === undefined) {
    if (inbound().some((m) => m.method === ack)) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { inbound, answer: () => answer };
}
