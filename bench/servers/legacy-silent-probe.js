// A legacy (2025-11-25) stdio server that ignores every request before `initialize`, the era probe
// (`server/discover`) included: the worst case of the fallback, which a client can only detect by its
// probe timeout. After `initialize` it lists one tool, `echo`, and answers it; other methods get -32601.
// Plain JS, like the ceiling's echo child: nothing to compile, and no test-server code to load.
import { createInterface } from 'node:readline';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const ECHO = {
  name: 'echo',
  description: 'Echoes the message back.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};
let initialized = false;

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof message !== 'object' || message === null || message.id === undefined || !message.method) {
    return;
  }
  const { id, method, params } = message;
  if (method === 'initialize') {
    initialized = true;
    const asked = params?.protocolVersion;
    send({
      id,
      result: {
        protocolVersion: VERSIONS.includes(asked) ? asked : VERSIONS[0],
        capabilities: { tools: {} },
        serverInfo: { name: 'legacy-silent-probe', version: '1.0.0' },
      },
    });
  } else if (!initialized) {
    // Silence: the probe gets no answer at all.
  } else if (method === 'tools/list') {
    send({ id, result: { tools: [ECHO] } });
  } else if (method === 'tools/call' && params?.name === 'echo') {
    send({ id, result: { content: [{ type: 'text', text: String(params.arguments?.message ?? '') }] } });
  } else if (method === 'ping') {
    send({ id, result: {} });
  } else {
    send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
});
process.stdin.on('end', () => process.exit(0));
