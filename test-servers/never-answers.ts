/**
 * A server that accepts TCP connections and never answers: no status line, no bytes, no close.
 * It stands for a remote MCP server that hangs (or a black-holing proxy); clients must time out.
 *
 *   node dist/test-servers/never-answers.js [--port P] [--http]
 *
 * Binds 127.0.0.1 (port 0 unless --port) and prints `listening http://127.0.0.1:PORT/mcp` as its first
 * stdout line. Request bytes are read and dropped so the client's writes never block.
 */
import { createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';

// `--http` is accepted for symmetry with the other HTTP test servers (and their start helper).
const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, http: { type: 'boolean' } },
});

const sockets = new Set<Socket>();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.on('data', () => {});
  socket.on('error', () => {});
  socket.on('close', () => sockets.delete(socket));
});

server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    for (const socket of sockets) socket.destroy();
    server.close(() => process.exit(0));
  });
}
