/**
 * The stdio transport: stdout hygiene, framing, and shutdown. "A reasonable time" to exit is the run's
 * exit grace (timing.ts: 30% of --timeout, at least 3 s).
 */
import {
  ALL_VERSIONS,
  BOTH_ERAS,
  type Check,
  EVERY_VERSION,
  fail,
  LEGACY_ONLY,
  MODERN_ONLY,
  MODERN_VERSIONS,
  NotApplicable,
  pass,
} from '../check.js';
import { StdioChannel } from '../probe/channel.js';
import type { RawProcess } from '../probe/stdio.js';
import type { CheckContext } from '../run/context.js';
import { cancelledCallOutcome, STOPPED_ANSWERING } from '../utilities/cancellation.js';

const TRANSPORTS = 'MCP 2025-11-25 basic/transports (stdio)';
const SHUTDOWN = 'MCP 2025-11-25 basic/lifecycle (Shutdown, stdio)';
/** 2026-07-28 moved the stdio rules to a binding page of their own; the sentences are the same. */
const MODERN_STDIO = 'MCP 2026-07-28 basic/transports/stdio';
const SHUTDOWN_SENTENCE =
  'For the stdio transport, the client SHOULD initiate shutdown by: First, closing the input stream to the child process (the server); Waiting for the server to exit, or sending SIGTERM if the server does not exit within a reasonable time; Sending SIGKILL if the server does not exit within a reasonable time after SIGTERM.';

const base = { section: 'stdio', versions: ALL_VERSIONS, transports: ['stdio'], eras: LEGACY_ONLY } as const;
const bothEras = { ...base, versions: EVERY_VERSION, eras: BOTH_ERAS } as const;

/** A fresh initialized server process, for the checks that end it. */
async function initializedProcess(ctx: CheckContext): Promise<RawProcess> {
  const { session } = await ctx.openInitialized();
  if (!(session.channel instanceof StdioChannel)) throw new NotApplicable('not a stdio server');
  return session.channel.probe;
}

export const stdioChecks: Check[] = [
  {
    ...bothEras,
    id: 'stdio.only-messages',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'nothing but JSON-RPC messages on stdout',
    requirement: 'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
    source: `${TRANSPORTS}; ${MODERN_STDIO} (introduction)`,
    async run(ctx) {
      ctx.session();
      const noise = ctx.probes.flatMap((probe) => probe.noise);
      if (noise.length > 0) {
        // The suite starts several server processes; a banner printed once per process shows as N lines
        // in all, so the message says how many each process printed.
        const noisy = ctx.probes.filter((probe) => probe.noise.length > 0);
        const counts = [...new Set(noisy.map((probe) => probe.noise.length))].sort((a, b) => a - b);
        const perProcess =
          counts.length === 1 ? `${counts[0]} line(s)` : `${counts[0]} to ${counts[counts.length - 1]} lines`;
        return fail(
          `${perProcess} on stdout per server process were not JSON-RPC messages (${noise.length} in all, from ${noisy.length} of the ${ctx.probes.length} processes the suite started)`,
          'only JSON-RPC messages',
          JSON.stringify(noise[0]?.slice(0, 160)),
        );
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'stdio.no-embedded-newlines',
    judgesWholeRun: true,
    level: 'MUST',
    title: 'each message is one line',
    requirement: 'Messages are delimited by newlines, and MUST NOT contain embedded newlines.',
    source: `${TRANSPORTS}; ${MODERN_STDIO} (introduction)`,
    async run(ctx) {
      ctx.session();
      const split = ctx.probes.flatMap((probe) => probe.multiline);
      if (split.length > 0) {
        return fail(
          `${split.length} message(s) were spread over several lines`,
          'one message per line',
          `a message over ${split[0]?.lines} lines`,
        );
      }
      return pass();
    },
  },
  {
    ...bothEras,
    id: 'stdio.exit-on-stdin-close',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'SHOULD',
    title: 'the server exits within a grace period of stdin closing',
    requirement: `${SHUTDOWN_SENTENCE} (2026-07-28: Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file.)`,
    source: `${SHUTDOWN}; ${MODERN_STDIO} (Shutdown)`,
    async run(ctx) {
      ctx.session();
      const probe = await initializedProcess(ctx);
      const grace = ctx.waits.exitGraceMs;
      const closedAt = probe.elapsed();
      probe.closeStdin();
      const exit = await probe.waitForExit(grace);
      if (!exit) return fail('still running after stdin closed', `exit within ${grace} ms`, 'still running');
      const afterMs = Math.round(exit.at - closedAt);
      ctx.metrics.exitAfterStdinCloseMs = afterMs;
      return pass(`exited after ${afterMs} ms (code ${exit.code}; grace ${grace} ms)`);
    },
  },
  {
    ...base,
    id: 'stdio.exit-on-sigterm',
    // Only its own fresh session(s); may run beside the other checks (scheduling.ts).
    isolated: true,
    level: 'SHOULD',
    title: 'the server exits within a grace period of SIGTERM',
    requirement: SHUTDOWN_SENTENCE,
    source: SHUTDOWN,
    async run(ctx) {
      ctx.session();
      if (process.platform === 'win32') throw new NotApplicable('signals are not delivered on Windows');
      const probe = await initializedProcess(ctx);
      const grace = ctx.waits.exitGraceMs;
      const sentAt = probe.elapsed();
      probe.signal('SIGTERM');
      const exit = await probe.waitForExit(grace);
      if (!exit) return fail('still running after SIGTERM', `exit within ${grace} ms`, 'still running');
      return pass(`exited after ${Math.round(exit.at - sentAt)} ms (grace ${grace} ms)`);
    },
  },
  {
    ...base,
    versions: MODERN_VERSIONS,
    eras: MODERN_ONLY,
    id: 'stdio.cancelled-silence',
    level: 'MUST',
    title: 'nothing more is sent for a tool call cancelled while it runs (--call-tools)',
    requirement:
      'Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.',
    source: `${MODERN_STDIO} (Cancellation)`,
    async run(ctx) {
      const outcome = await cancelledCallOutcome(ctx);
      // A server that stopped answering broke another rule (cancellation.race-handled judges that);
      // this one is about messages sent for the cancelled request.
      if (outcome.status === 'fail' && outcome.message === STOPPED_ANSWERING)
        throw new NotApplicable(
          `the server stopped answering after the cancellation (${outcome.actual ?? ''})`,
        );
      return outcome;
    },
  },
];
