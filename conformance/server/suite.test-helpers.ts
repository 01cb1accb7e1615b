/** Shared by the conformance tests: where compiled test servers live, and a runner call with test defaults. */
import { fileURLToPath } from 'node:url';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import type { Report } from './report/model.js';
import { runSuite } from './runner.js';

export function testServer(name: string): string {
  return fileURLToPath(new URL(`../../dist/test-servers/${name}.js`, import.meta.url));
}

export function runAgainst(
  server: string,
  args: readonly string[] = [],
  extra: {
    specVersion?: ProtocolVersion;
    callTools?: boolean;
    fuzz?: number;
    only?: string[];
    timeoutMs?: number;
  } = {},
): Promise<Report> {
  return runSuite({
    target: {
      transport: 'stdio',
      command: { command: process.execPath, args: [testServer(server), ...args] },
    },
    timeoutMs: extra.timeoutMs ?? 5000,
    callTools: extra.callTools ?? false,
    fuzz: extra.fuzz ?? 0,
    ...(extra.specVersion ? { specVersion: extra.specVersion } : {}),
    ...(extra.only ? { only: extra.only } : {}),
  });
}

export function idsWith(report: Report, status: 'fail' | 'warn' | 'skip' | 'pass'): string[] {
  return report.checks.filter((check) => check.status === status).map((check) => check.id);
}
