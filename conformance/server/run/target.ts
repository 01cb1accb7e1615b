/**
 * What the suite vets: a stdio server (a command, optionally in a sandbox container) or a Streamable
 * HTTP endpoint. A leaf module, so the checks, the context and the probes can all name it without
 * importing each other.
 */
import type { SandboxSettings } from '../probe/container.js';
import type { HttpTarget } from '../probe/http.js';
import type { StdioCommand } from '../probe/stdio.js';

export type TransportKind = 'stdio' | 'http';

export type { HttpTarget, SandboxSettings, StdioCommand };

/** A stdio target runs as a local child process, or, with `sandbox`, in a fresh sandbox container. */
export type Target =
  | { transport: 'stdio'; command: StdioCommand; sandbox?: SandboxSettings }
  | ({ transport: 'http' } & HttpTarget);
