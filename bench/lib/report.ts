/** The `bench/latest.json` document and the table printed to stdout. */
import type { BusyVerdict } from './busy.js';

export type Better = 'higher' | 'lower';

export interface ScenarioFigures {
  /** Medians over rounds of each client's own figure. */
  furfly: number | null;
  /** The reference SDK v1 (`@modelcontextprotocol/sdk`); null where it cannot take part (modern era). */
  sdk: number | null;
  /**
   * furfly / SDK: the median of the per-round ratios (each round measures both, one after the other).
   * Read it with `better`: above 1 is good when higher is better, below 1 when lower is.
   */
  ratio: number | null;
  /** How far the per-round ratios spread: (max - min) / median; 0.05 is 5 %. */
  ratioSpread?: number | null;
  /** The reference SDK v2 client (`@modelcontextprotocol/client`, auto mode), where it was measured. */
  sdkV2?: number | null;
  /** furfly / SDK v2, read the same way as `ratio`, with its spread. */
  ratioV2?: number | null;
  ratioV2Spread?: number | null;
  /**
   * Throughput rows: the bare newline-echo loop's figure for the same workload (calls/s, or µs of CPU
   * per call), measured in the same rounds, and furfly's figure over it (median of the per-round
   * quotients): for calls/s the fraction of what the machine can do, for CPU the multiple of the least
   * any stdio client pays.
   */
  ceiling?: number | null;
  ofCeiling?: number | null;
  unit: string;
  better: Better;
  /** Measurements behind each median (one per round). */
  rounds: number;
  note?: string;
  /** When the SDK was killed for overrunning its budget: a lower bound for its figure. */
  sdkAtLeast?: number;
  /** Secondary figures of the same runs (furfly's), named with their unit; not in the table. */
  details?: Record<string, number | null>;
}

export interface BenchReport {
  machine: { cpus: number; model: string; node: string; platform: string; date: string; loadavg: number[] };
  /** Whether other work competed for the cores during the run (see lib/busy.ts). */
  busy?: BusyVerdict;
  command: string;
  rounds: number;
  durationSeconds: number;
  scenarios: Record<string, ScenarioFigures>;
}

function formatNumber(value: number | null): string {
  if (value === null || Number.isNaN(value)) return '-';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function formatSpread(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '-';
  return `${(value * 100).toFixed(value < 0.1 ? 1 : 0)}%`;
}

export const TABLE_HEADER = [
  'scenario',
  'furfly',
  'SDK',
  'furfly/SDK',
  'spread',
  'SDK v2',
  'furfly/SDK v2',
  'spread v2',
  'ceiling',
  'furfly/ceiling',
  'unit',
  'better',
] as const;

export function renderTable(report: BenchReport): string {
  const ratioText = (ratio: number | null | undefined): string =>
    ratio === null || ratio === undefined ? '-' : `${ratio.toFixed(2)}x`;
  const rows = Object.entries(report.scenarios).map(([name, s]) => [
    name,
    formatNumber(s.furfly),
    s.sdk === null && s.sdkAtLeast !== undefined ? `>${formatNumber(s.sdkAtLeast)}` : formatNumber(s.sdk),
    s.ratio !== null
      ? ratioText(s.ratio)
      : s.furfly !== null && s.sdkAtLeast !== undefined
        ? `<${(s.furfly / s.sdkAtLeast).toFixed(2)}x`
        : '-',
    formatSpread(s.ratioSpread),
    formatNumber(s.sdkV2 ?? null),
    ratioText(s.ratioV2),
    formatSpread(s.ratioV2Spread),
    formatNumber(s.ceiling ?? null),
    ratioText(s.ofCeiling),
    s.unit,
    s.better,
  ]);
  const header = [...TABLE_HEADER];
  const textColumn = (i: number): boolean => i === 0 || i >= header.length - 2;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (textColumn(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  // Markdown alignment row: numbers right-aligned, so the table pastes into docs as it is.
  const separator = `|${widths.map((w, i) => (textColumn(i) ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), separator, ...rows.map(line)].join('\n');
}
