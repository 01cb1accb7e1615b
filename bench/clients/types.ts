/** What every benchmarked client offers the workloads: one connected session, calls, and a close. */

export type Target = { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string };

export interface BenchClient {
  /** Calls a tool and returns the text of its first content block; throws when the call failed. */
  call(tool: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
  /** The stdio server's pid, so the runner can make sure it is gone. */
  readonly serverPid: number | undefined;
  /** The protocol era the connection ended up in (SDK v1 speaks only the legacy one). */
  readonly era: 'legacy' | 'modern' | undefined;
}

export interface ConnectOptions {
  /** Largest single message the client accepts (raised for the 50 MB scenario on both clients alike). */
  maxMessageBytes: number;
  timeoutMs: number;
  /**
   * How long the era probe (`server/discover`) waits for an answer before the server counts as legacy;
   * unset, each client's default (furfly 3 s, SDK v2 its request timeout). SDK v1 does not probe.
   */
  probeTimeoutMs?: number;
  /** furfly only: pin the legacy version (no probe), the baseline of the fallback's cost. */
  pinLegacy?: boolean;
}

/** The first text block of a tool result, the same way for both clients. */
export function firstText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const block = content[0] as { type?: unknown; text?: unknown } | undefined;
  return block?.type === 'text' && typeof block.text === 'string' ? block.text : '';
}
