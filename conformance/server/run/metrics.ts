/**
 * Metrics: measured and reported, never judged. Collected after the checks, on the shared session.
 */

import { percentile } from '../helpers/helpers.js';
import { ContainerProbe } from '../probe/container.js';
import { toolListing } from '../server-features/tools.js';
import type { CheckContext } from './context.js';

const PING_SAMPLES = 20;

export async function collectMetrics(ctx: CheckContext): Promise<void> {
  const metrics = ctx.metrics;
  metrics.initializeMs = ctx.init.reply ? Math.round(ctx.init.reply.ms * 10) / 10 : null;
  metrics.pingP50Ms = null;
  metrics.pingP95Ms = null;
  metrics.toolCount = null;
  if (ctx.init.result) {
    try {
      const session = ctx.session();
      const samples: number[] = [];
      // Sequential on purpose: latency of one request, not throughput.
      for (let i = 0; i < PING_SAMPLES; i++) samples.push((await session.ping()).ms);
      samples.sort((a, b) => a - b);
      metrics.pingP50Ms = round(percentile(samples, 50));
      metrics.pingP95Ms = round(percentile(samples, 95));
    } catch {
      // A server that stopped answering has no latency to report.
    }
    try {
      const listing = await toolListing(ctx);
      metrics.toolCount = listing.error ? null : listing.items.length;
    } catch {
      // No tools capability: no count.
    }
  }
  if (ctx.transport === 'stdio') {
    metrics.noiseLines = ctx.probes.reduce((sum, probe) => sum + probe.noise.length, 0);
    const probe = ctx.sharedProbe();
    metrics.peakRssKb = probe?.peakRssKb() ?? null;
    // In a sandbox no process RSS is visible; the container's own peak stands in (null when unknown).
    if (probe instanceof ContainerProbe) metrics.containerPeakMemoryKb = await probe.peakMemoryKb();
    if (!('exitAfterStdinCloseMs' in metrics)) metrics.exitAfterStdinCloseMs = null;
  }
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10) / 10;
}

/**
 * Metrics of a modern-only run (no initialize, no ping in 2026-07-28): how fast `server/discover` was
 * answered, and the tool count from a modern `tools/list`.
 */
export async function collectModernMetrics(ctx: CheckContext): Promise<void> {
  const metrics = ctx.metrics;
  const reply = ctx.discover?.reply;
  metrics.discoverMs = reply ? round(reply.ms) : null;
  metrics.toolCount = null;
  if (ctx.discover?.result && ctx.modernCapabilities.tools !== undefined) {
    try {
      const listed = await ctx.modern().request('tools/list', {});
      const tools = (listed.message.result as { tools?: unknown } | undefined)?.tools;
      metrics.toolCount = Array.isArray(tools) ? tools.length : null;
    } catch {
      // No answer: no count.
    }
  }
  if (ctx.transport === 'stdio') {
    metrics.noiseLines = ctx.probes.reduce((sum, probe) => sum + probe.noise.length, 0);
    metrics.peakRssKb = ctx.sharedProbe()?.peakRssKb() ?? null;
  }
}
