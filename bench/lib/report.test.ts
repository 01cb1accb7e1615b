import { describe, expect, it } from 'vitest';
import { type BenchReport, renderTable } from './report.js';

const report = (scenarios: BenchReport['scenarios']): BenchReport => ({
  machine: { cpus: 2, model: 'test', node: 'v20', platform: 'linux', date: '2026-12-01', loadavg: [1, 1, 1] },
  command: 'npm run bench',
  rounds: 1,
  durationSeconds: 1,
  scenarios,
});

/** The cells of the table row that starts with `name`. */
function row(table: string, name: string): string[] {
  const line = table.split('\n').find((l) => l.startsWith(`| ${name} `));
  if (!line) throw new Error(`no row ${name} in:\n${table}`);
  return line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

describe('the bench table', () => {
  it('shows the SDK v1 and the SDK v2 side by side, each with its own ratio', () => {
    const table = renderTable(
      report({
        'stdio.well-behaved.inflight100.cpu_us_per_call': {
          furfly: 10,
          sdk: 40,
          ratio: 0.25,
          ratioSpread: 0.04,
          sdkV2: 50,
          ratioV2: 0.2,
          ratioV2Spread: 0.12,
          ceiling: 8,
          ofCeiling: 1.25,
          unit: 'µs CPU/call',
          better: 'lower',
          rounds: 1,
        },
        // The modern era: the SDK v1 cannot take part.
        'stdio.modern.well-behaved.inflight100.calls_per_s': {
          furfly: 3000,
          sdk: null,
          ratio: null,
          sdkV2: 1500,
          ratioV2: 2,
          ceiling: 30000,
          ofCeiling: 0.1,
          unit: 'calls/s',
          better: 'higher',
          rounds: 1,
        },
        // A scenario measured before the SDK v2 existed in the bench: its columns stay empty.
        'startup.10-servers.prompt_ms': {
          furfly: 700,
          sdk: null,
          ratio: null,
          unit: 'ms',
          better: 'lower',
          rounds: 1,
        },
      }),
    );
    expect(
      table
        .split('\n')[0]!
        .split('|')
        .map((c) => c.trim()),
    ).toEqual([
      '',
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
      '',
    ]);
    expect(row(table, 'stdio.well-behaved.inflight100.cpu_us_per_call')).toEqual([
      'stdio.well-behaved.inflight100.cpu_us_per_call',
      '10.0',
      '40.0',
      '0.25x',
      '4.0%',
      '50.0',
      '0.20x',
      '12%',
      '8.00',
      '1.25x',
      'µs CPU/call',
      'lower',
    ]);
    expect(row(table, 'stdio.modern.well-behaved.inflight100.calls_per_s').slice(1, 10)).toEqual([
      '3000',
      '-',
      '-',
      '-',
      '1500',
      '2.00x',
      '-',
      '30000',
      '0.10x',
    ]);
    expect(row(table, 'startup.10-servers.prompt_ms').slice(1, 10)).toEqual(
      Array.from({ length: 9 }, (_, i) => (i === 0 ? '700' : '-')),
    );
  });

  it('keeps the lower bound of an SDK v1 that overran its budget', () => {
    const table = renderTable(
      report({
        'stdio.large-50MB.ms': {
          furfly: 1500,
          sdk: null,
          ratio: null,
          sdkAtLeast: 60000,
          unit: 'ms',
          better: 'lower',
          rounds: 1,
        },
      }),
    );
    expect(row(table, 'stdio.large-50MB.ms').slice(1, 4)).toEqual(['1500', '>60000', '<0.03x']);
  });
});
