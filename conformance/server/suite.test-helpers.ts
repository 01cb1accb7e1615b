/** Shared by the conformance tests: where compiled test servers live, and a runner call with test defaults. */
import { fileURLToPath } from 'node:url';
import type { KnownProtocolVersion } from '../../src/protocol/versions.js';
import { startHttpServer } from '../../test-servers/testing.js';
import type { Report } from './report/model.js';
import { runSuite } from './run/runner.js';
import type { Target } from './run/target.js';

export function testServer(name: string): string {
  return fileURLToPath(new URL(`../../dist/test-servers/${name}.js`, import.meta.url));
}

export interface RunExtras {
  specVersion?: KnownProtocolVersion;
  callTools?: boolean;
  fuzz?: number;
  only?: string[];
  timeoutMs?: number;
  /** HTTP only: the run's headers (e.g. `authorization` for a server started with --auth-token). */
  headers?: Record<string, string>;
}

/** Starts `server --http --port 0 …args`, runs the suite against its URL, then kills it by its pid. */
export async function runAgainstHttp(
  server: string,
  args: readonly string[] = [],
  extra: RunExtras = {},
): Promise<Report> {
  const started = await startHttpServer(server, [...args]);
  try {
    return await runSuiteOn({ transport: 'http', url: started.url, headers: extra.headers ?? {} }, extra);
  } finally {
    try {
      process.kill(started.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await started.exited;
  }
}

export function runAgainst(
  server: string,
  args: readonly string[] = [],
  extra: RunExtras = {},
): Promise<Report> {
  return runSuiteOn(
    { transport: 'stdio', command: { command: process.execPath, args: [testServer(server), ...args] } },
    extra,
  );
}

function runSuiteOn(target: Target, extra: RunExtras): Promise<Report> {
  return runSuite({
    target,
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
