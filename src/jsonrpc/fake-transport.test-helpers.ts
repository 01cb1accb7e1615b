/** An in-memory Transport for unit tests: records what was sent and lets a test play the other side. */
import type { RequestId, Transport, TransportClosed } from './transport.js';

export class FakeTransport implements Transport {
  readonly sent: Record<string, unknown>[] = [];
  started = false;
  closed = false;
  sendFails: Error | undefined;
  diagnosticsText = '';

  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason: TransportClosed) => void;
  onrequestfailed?: (ids: readonly RequestId[], error: Error) => void;

  async start(): Promise<void> {
    this.started = true;
  }

  async send(message: object): Promise<void> {
    if (this.sendFails) throw this.sendFails;
    this.sent.push(message as Record<string, unknown>);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.({ message: 'closed by the client' });
  }

  diagnostics(): string {
    return this.diagnosticsText;
  }

  /** Play the other side: deliver one message to the peer. */
  deliver(message: unknown): void {
    this.onmessage?.(message);
  }

  /** Play a transport that lost these requests (say, their reply stream was cut) while it stays open. */
  loseRequests(ids: readonly RequestId[], error: Error): void {
    this.onrequestfailed?.(ids, error);
  }

  /** Simulate the connection dying on its own. */
  die(reason: TransportClosed): void {
    this.closed = true;
    this.onclose?.(reason);
  }

  lastSent(): Record<string, unknown> {
    const last = this.sent.at(-1);
    if (!last) throw new Error('nothing was sent');
    return last;
  }
}

/** Wait until the microtask queue has run (sends are async). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
