/** Lifecycle: initialization, version negotiation, the initialized notification, ping. */
import { isProtocolVersion, LATEST_PROTOCOL_VERSION } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import { ALL_VERSIONS, BOTH_TRANSPORTS, brief, type Check, fail, LEGACY_ONLY, pass } from '../check.js';
import { resultIssues } from '../helpers/helpers.js';
import { type CheckContext, initialize, isVersionShaped } from '../run/context.js';
import { isObject, type JsonObject, type Reply } from '../run/session.js';

const LIFECYCLE = 'MCP 2025-11-25 basic/lifecycle';
const PING = 'MCP 2025-11-25 basic/utilities/ping';
const RESPOND_SENTENCE = 'The server MUST respond with its own capabilities and information.';
const PING_SENTENCE = 'The receiver MUST respond promptly with an empty response.';
/** A version no server speaks: the negotiation check proposes it. */
const BOGUS_VERSION = '1999-01-01';

const base = {
  section: 'lifecycle',
  versions: ALL_VERSIONS,
  transports: BOTH_TRANSPORTS,
  eras: LEGACY_ONLY,
} as const;

/** An empty ping result: `{}`, allowing only the reserved `_meta`. */
function isEmptyResult(message: JsonObject): boolean {
  return isObject(message.result) && Object.keys(message.result).every((key) => key === '_meta');
}

/** One uninitialized session used by the checks about requests before initialize. */
interface PreInit {
  ping: Reply | string;
  request: Reply | string;
  laterInitialize: string | null;
}

function preInitScenario(ctx: CheckContext): Promise<PreInit> {
  return ctx.memo('lifecycle.pre-init', async () => {
    const session = await ctx.open('suite');
    const attempt = async (send: () => Promise<Reply>) => {
      try {
        return await send();
      } catch (error) {
        return errorText(error);
      }
    };
    const ping = await attempt(() => session.ping());
    const request = await attempt(() => session.request('tools/list', {}));
    const init = await initialize(session, ctx.version);
    return { ping, request, laterInitialize: init.result ? null : (init.error ?? 'no result') };
  });
}

export const lifecycleChecks: Check[] = [
  {
    ...base,
    id: 'lifecycle.initialize-valid',
    level: 'MUST',
    title: 'initialize is answered with a result valid for the negotiated version',
    requirement: RESPOND_SENTENCE,
    source: LIFECYCLE,
    async run(ctx) {
      const init = ctx.init;
      if (!init.result)
        return fail('initialize got no result', 'an InitializeResult', init.error ?? 'nothing');
      const issues = resultIssues(ctx, 'initialize', init.result);
      if (issues.length > 0) {
        return fail(
          `the InitializeResult is not valid for ${ctx.version}`,
          'a valid InitializeResult',
          issues.join('; '),
        );
      }
      if (typeof init.result.protocolVersion !== 'string') {
        return fail(
          'protocolVersion missing',
          'a protocolVersion string',
          brief(init.result.protocolVersion),
        );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'lifecycle.server-info',
    level: 'MUST',
    title: 'serverInfo (name, version) and capabilities are present',
    requirement: RESPOND_SENTENCE,
    source: LIFECYCLE,
    async run(ctx) {
      const result = ctx.session() && ctx.init.result;
      const info = result?.serverInfo;
      if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
        return fail(
          'serverInfo is missing or incomplete',
          'serverInfo with string name and version',
          brief(info),
        );
      }
      if (!isObject(result?.capabilities)) {
        return fail('capabilities is missing', 'a capabilities object', brief(result?.capabilities));
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'lifecycle.version-echo',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'a supported requested version is echoed back',
    requirement:
      'If the server supports the requested protocol version, it MUST respond with the same version.',
    source: LIFECYCLE,
    async run(ctx) {
      ctx.session();
      if (ctx.init.protocolVersion === ctx.init.proposed) return pass();
      // The server answered an older version than we proposed: ask for exactly that one.
      const answered = ctx.init.protocolVersion;
      if (!isProtocolVersion(answered)) {
        return fail(
          `the server answered a version furfly does not know to a request for ${ctx.init.proposed}`,
          ctx.init.proposed,
          brief(answered),
        );
      }
      const session = await ctx.open();
      const again = await initialize(session, answered);
      if (again.protocolVersion !== answered) {
        return fail(
          `proposing ${answered} (which the server chose itself) was not echoed`,
          answered,
          brief(again.protocolVersion ?? again.error),
        );
      }
      return pass(`the server does not speak ${LATEST_PROTOCOL_VERSION}; it echoes ${answered}`);
    },
  },
  {
    ...base,
    id: 'lifecycle.version-negotiation',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'an unknown requested version gets a version the server supports',
    requirement:
      'If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports.',
    source: LIFECYCLE,
    async run(ctx) {
      ctx.session();
      const session = await ctx.open();
      const init = await initialize(session, BOGUS_VERSION);
      if (!init.result) {
        return fail(
          `proposing ${BOGUS_VERSION} got no InitializeResult`,
          'a result naming a version the server supports',
          init.error ?? 'nothing',
        );
      }
      const answered = init.protocolVersion;
      if (answered === null || answered === BOGUS_VERSION) {
        return fail(
          'the server did not offer a version of its own',
          'a version the server supports',
          brief(answered),
        );
      }
      // Any date-shaped version is one the server may support (2024-11-05 included): furfly cannot know
      // the server's list, only that the answer names a version.
      if (answered !== ctx.init.protocolVersion && !isVersionShaped(answered)) {
        return fail(
          'the offered version is not a protocol version (YYYY-MM-DD)',
          ctx.init.protocolVersion ?? 'a supported version',
          answered,
        );
      }
      return pass(`offered ${answered}`);
    },
  },
  {
    ...base,
    id: 'lifecycle.initialized-no-reply',
    level: 'MUST',
    title: 'notifications/initialized is accepted without a reply',
    requirement:
      'Notifications are sent from the client to the server or vice versa, as a one-way message. The receiver MUST NOT send a response.',
    source: 'MCP 2025-11-25 basic (Notifications)',
    async run(ctx) {
      ctx.session();
      const replies = ctx.init.initializedReplies;
      if (replies.length > 0) {
        return fail('the server replied to notifications/initialized', 'no reply', brief(replies[0]));
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'lifecycle.ping',
    level: 'MUST',
    title: 'ping after initialization gets an empty result',
    requirement: PING_SENTENCE,
    source: PING,
    async run(ctx) {
      const reply = await ctx.session().ping();
      if (!isEmptyResult(reply.message))
        return fail('ping was not answered with {}', '{"result":{}}', brief(reply.message));
      return pass();
    },
  },
  {
    ...base,
    // Over Streamable HTTP a request before initialize has no session to belong to (see http.session-*).
    transports: ['stdio'],
    id: 'lifecycle.ping-before-initialize',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'ping before initialization gets an empty result',
    requirement: `${PING_SENTENCE} The client SHOULD NOT send requests other than pings before the server has responded to the initialize request.`,
    source: `${PING}; ${LIFECYCLE}`,
    async run(ctx) {
      const scenario = await preInitScenario(ctx);
      if (typeof scenario.ping === 'string')
        return fail('ping before initialize was not answered', '{"result":{}}', scenario.ping);
      if (!isEmptyResult(scenario.ping.message)) {
        return fail(
          'ping before initialize was not answered with {}',
          '{"result":{}}',
          brief(scenario.ping.message),
        );
      }
      return pass();
    },
  },
  {
    ...base,
    // Over Streamable HTTP a request before initialize has no session to belong to (see http.session-*).
    transports: ['stdio'],
    id: 'lifecycle.request-before-initialize',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'MUST',
    title: 'a request before initialize is answered (result or error) and the server stays usable',
    requirement:
      'When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.',
    source: 'JSON-RPC 2.0 §5',
    async run(ctx) {
      const scenario = await preInitScenario(ctx);
      if (typeof scenario.request === 'string') {
        return fail(
          'tools/list before initialize was not answered',
          'a result or an error response',
          scenario.request,
        );
      }
      if (scenario.laterInitialize !== null) {
        return fail(
          'initialize failed after an early request',
          'a normal InitializeResult',
          scenario.laterInitialize,
        );
      }
      return pass(
        isObject(scenario.request.message.error) ? 'answered with an error' : 'answered with a result',
      );
    },
  },
];
