/**
 * How the suite's session answers the server's own requests: by default as a client without
 * capabilities (ping answered, everything else -32601); with a serverRequestHandler, with its result.
 * A scripted channel stands in for the server, since what is judged is only what the session writes.
 */
import { describe, expect, it } from 'vitest';
import type { Channel } from '../probe/channel.js';
import { type JsonObject, Session } from './session.js';

class ScriptedChannel implements Channel {
  readonly kind = 'stdio' as const;
  readonly sent: JsonObject[] = [];
  private listener: (message: unknown) => void = () => {};
  async send(text: string): Promise<void> {
    this.sent.push(JSON.parse(text) as JsonObject);
  }
  onMessage(listener: (message: unknown) => void): () => void {
    this.listener = listener;
    return () => {};
  }
  onClose(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
  setProtocolVersion(): void {}
  fromServer(message: JsonObject): void {
    this.listener(message);
  }
}

const elicit = { jsonrpc: '2.0', id: 's1', method: 'elicitation/create', params: { message: 'Name?' } };

describe('Session: requests from the server', () => {
  it('without a handler, answers ping and refuses the rest with -32601', () => {
    const channel = new ScriptedChannel();
    new Session(channel, 1000);
    channel.fromServer({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    channel.fromServer(elicit);
    expect(channel.sent).toEqual([
      { jsonrpc: '2.0', id: 'p', result: {} },
      { jsonrpc: '2.0', id: 's1', error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it('with a handler, answers what it handles and falls back for the rest', () => {
    const channel = new ScriptedChannel();
    const session = new Session(channel, 1000);
    session.serverRequestHandler = (method, params) =>
      method === 'elicitation/create' ? { action: 'decline', seen: params } : null;
    channel.fromServer(elicit);
    channel.fromServer({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
    expect(channel.sent).toEqual([
      { jsonrpc: '2.0', id: 's1', result: { action: 'decline', seen: { message: 'Name?' } } },
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
    ]);
    // Both directions are in the session's log, in order: what the whole-run checks judge.
    expect(session.log.map((entry) => entry.direction)).toEqual(['in', 'out', 'in', 'out']);
  });
});
