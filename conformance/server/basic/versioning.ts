/**
 * Protocol version negotiation (MCP 2026-07-28 basic/versioning): a request under a version the server
 * does not implement is refused with UnsupportedProtocolVersionError, naming the versions it does.
 */
import { BOTH_TRANSPORTS, brief, type Check, fail, MODERN_ONLY, MODERN_VERSIONS, pass } from '../check.js';
import { MODERN_LISTS } from '../helpers/modern-scenarios.js';
import { HttpChannel } from '../probe/channel.js';
import type { CheckContext } from '../run/context.js';
import type { ModernSession } from '../run/modern-client.js';
import { isObject, type JsonObject } from '../run/session.js';

/** A date no server speaks. */
export const UNSUPPORTED_VERSION = '1900-01-01';

/** server/discover plus each list the server declares: "every request", sampled over the methods it has. */
export function probeMethods(ctx: CheckContext): string[] {
  const lists = MODERN_LISTS.filter((list) => isObject(ctx.capabilities[list.capability])).map(
    (l) => l.method,
  );
  return ['server/discover', ...new Set(lists)];
}

/** Why an error is not a proper UnsupportedProtocolVersionError, or null when it is one. */
export function unsupportedVersionProblem(message: JsonObject): string | null {
  const error = message.error;
  if (!isObject(error)) return 'the request was served';
  if (error.code !== -32022) return `error code ${brief(error.code)} instead of -32022`;
  const supported = isObject(error.data) ? error.data.supported : undefined;
  if (!Array.isArray(supported) || supported.length === 0 || !supported.every((v) => typeof v === 'string'))
    return 'data.supported does not list the supported versions';
  return null;
}

/**
 * Over HTTP the refusal also has a status: "it MUST respond with 400 Bad Request and an
 * UnsupportedProtocolVersionError" (streamable-http, Protocol Version Header).
 */
function httpStatusProblem(session: ModernSession, id: unknown): string | null {
  const channel = session.session.channel;
  if (!(channel instanceof HttpChannel)) return null;
  const status = channel.posts.find((post) => post.requestId === id)?.exchange?.status;
  return status === undefined || status === 400 ? null : `HTTP ${status} instead of 400`;
}

export const versioningChecks: readonly Check[] = [
  {
    id: 'lifecycle.unsupported-version',
    section: 'lifecycle',
    level: 'MUST',
    title: 'a request under an unsupported version gets -32022 with data.supported',
    requirement:
      'If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support.',
    source:
      'MCP 2026-07-28 basic/versioning (Protocol Version Negotiation); basic/transports/streamable-http (Protocol Version Header: 400 over HTTP)',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    async run(ctx) {
      const session = ctx.modern();
      const problems: string[] = [];
      for (const method of probeMethods(ctx)) {
        const meta = { ...session.meta(), 'io.modelcontextprotocol/protocolVersion': UNSUPPORTED_VERSION };
        const reply = await session.request(method, {}, { meta });
        const problem =
          unsupportedVersionProblem(reply.message) ?? httpStatusProblem(session, reply.message.id);
        if (problem) problems.push(`${method}: ${problem} (${brief(reply.message, 160)})`);
      }
      if (problems.length > 0) {
        return fail(
          `a request under version ${UNSUPPORTED_VERSION} was not refused properly`,
          'error -32022 with data.supported naming the versions the server speaks',
          problems.join('; '),
        );
      }
      return pass();
    },
  },
];
