/**
 * Where the bytes of a framed stream come from and go to: a local child process
 * (`stdio/child-process-source.ts`) or a sandbox container's attach stream
 * (`container/docker-attach-source.ts`). A source knows how to start, feed and stop its server; it knows
 * nothing of JSON, lines, limits or batching, which the FramedStreamTransport above it owns.
 */
import type { Writable } from 'node:stream';

/** How the server ended, as far as the source can tell. */
export interface SourceExit {
  code: number | null;
  signal: string | null;
  /** The end in words for a close reason, e.g. "the server process exited with code 1". Names no secret. */
  text: string;
}

/** What a source reports to the transport above it. Each is called from the source's stream handlers. */
export interface ByteSourceEvents {
  /** Bytes the server wrote to its stdout. */
  stdout(chunk: Buffer): void;
  /** The server's stdout ended: a last line without a newline still counts. */
  stdoutEnded(): void;
  /** Bytes the server wrote to its stderr. */
  stderr(chunk: Buffer): void;
  /** Something worth reporting that does not end the connection (a stream error, a failed cleanup). */
  problem(error: Error): void;
  /** The server has ended. Called once. */
  exited(exit: SourceExit): void;
  /** Everything the server wrote has been read (its output streams are closed). Called at most once. */
  drained(): void;
}

/** How long each polite step of a stop may take before the next, firmer one. */
export interface StopGrace {
  /** After the server's stdin is closed, before SIGTERM. */
  stdinGraceMs: number;
  /** After SIGTERM, before the server is killed. */
  termGraceMs: number;
}

export interface ByteSource {
  /**
   * Brings the server up with `events` wired before its first byte can arrive. Resolves once it runs;
   * rejects with a message for people (never a secret) when it cannot be started, having cleaned up.
   */
  start(events: ByteSourceEvents): Promise<void>;
  /** The server's stdin once started: where the encoded messages are written. */
  readonly input: Writable | undefined;
  /**
   * Stops the server: its stdin ends (the MCP way to say "we are done"), then SIGTERM, then it is killed
   * (or its container removed). Resolves once it has ended. Safe to call while start() is still running.
   */
  stop(grace: StopGrace): Promise<void>;
  /** Lets go of the streams once the transport has reported the close. */
  release(): void;
}
