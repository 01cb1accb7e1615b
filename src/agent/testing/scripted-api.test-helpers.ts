/**
 * A Messages API on 127.0.0.1 for tests that run the real `furfly` binary (msw cannot reach another
 * process): each request is answered, as SSE, with the next scripted turn; every request body is kept.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Json, type ScriptedBlock, sse, streamEvents } from './fake-anthropic.test-helpers.js';

export interface ScriptedApi {
  /** For ANTHROPIC_BASE_URL. */
  url: string;
  /** The parsed body of every request, in order. */
  requests: Json[];
  close(): Promise<void>;
}

export async function startScriptedApi(turns: ScriptedBlock[][]): Promise<ScriptedApi> {
  const requests: Json[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push(JSON.parse(body));
      const blocks = turns.shift() ?? [{ type: 'text', text: 'the script has no turn left' }];
      const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(streamEvents(blocks, stop, {})));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
