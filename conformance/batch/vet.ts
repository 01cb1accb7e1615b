/**
 * `vet(target, options)`: the suite for use from a test runner, with the CLI's defaults filled in.
 * A target is a Target object, a URL (`http(s)://…`, Streamable HTTP) or a command line (split into
 * words without a shell). Resolves with the report (the same object `runSuite` gives); rejects with
 * SuiteError only when the server cannot be vetted at all.
 */
import { splitCommandLine } from '../../src/mcp/command-line.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import type { Report } from '../server/report/model.js';
import { runSuite } from '../server/run/runner.js';
import type { Target } from '../server/run/target.js';

export interface VetOptions {
  /** Timeout per step, ms (default 10 000, as the CLI). */
  timeoutMs?: number;
  /** Let the suite call the server's tools, which may have side effects (default false). */
  callTools?: boolean;
  /** With callTools: generated calls per tool (default 0). */
  fuzz?: number;
  specVersion?: ProtocolVersion;
  /** Globs over check ids. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Headers for a URL target given as a string. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function targetOf(target: Target | string, headers: Record<string, string> | undefined): Target {
  if (typeof target !== 'string') return target;
  if (/^https?:\/\//i.test(target)) {
    const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return { transport: 'http', url: target, headers: lower };
  }
  const [command, ...args] = splitCommandLine(target);
  if (command === undefined) throw new TypeError('vet: the command line is empty');
  return { transport: 'stdio', command: { command, args } };
}

export function vet(target: Target | string, options: VetOptions = {}): Promise<Report> {
  return runSuite({
    target: targetOf(target, options.headers),
    timeoutMs: options.timeoutMs ?? 10_000,
    callTools: options.callTools ?? false,
    fuzz: options.fuzz ?? 0,
    ...(options.specVersion === undefined ? {} : { specVersion: options.specVersion }),
    ...(options.only === undefined ? {} : { only: options.only }),
    ...(options.skip === undefined ? {} : { skip: options.skip }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
