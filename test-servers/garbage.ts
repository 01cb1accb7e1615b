/**
 * garbage: the well-behaved server whose answer to one method (--on, default tools/call) is broken in
 * one way (--mode). Every other message, the handshake included, is correct unless --on initialize.
 *
 *   node dist/test-servers/garbage.js --mode invalid-json|wrong-jsonrpc|mismatched-id|schema-violation
 *                                     [--on tools/call|tools/list|initialize]
 *
 *   invalid-json      the response is cut in the middle: one line that is not JSON
 *   wrong-jsonrpc     the response has "jsonrpc": "1.0"
 *   mismatched-id     the response carries another id (number + 1000, or string + "-mismatched"); the real
 *                     id is never answered
 *   schema-violation  valid JSON-RPC whose result breaks the MCP schema of the method:
 *                       initialize -> {"protocolVersion":20250618,"capabilities":"none"} (no serverInfo)
 *                       tools/list -> {"tools":[{"name":42,"inputSchema":"not an object"}]}
 *                       tools/call -> {"content":"not an array","isError":"no"}
 */
import { choiceFlag, runServer, standardDefinition, UsageError } from './lib/cli.js';

const MODES = ['invalid-json', 'wrong-jsonrpc', 'mismatched-id', 'schema-violation'] as const;
const METHODS = ['tools/call', 'tools/list', 'initialize'] as const;
type Method = (typeof METHODS)[number];

const VIOLATIONS: Record<Method, unknown> = {
  initialize: { protocolVersion: 20250618, capabilities: 'none' },
  'tools/list': { tools: [{ name: 42, inputSchema: 'not an object' }] },
  'tools/call': { content: 'not an array', isError: 'no' },
};

runServer({
  name: 'garbage',
  usage: `  --mode invalid-json|wrong-jsonrpc|mismatched-id|schema-violation   how the answer is broken (required)
  --on tools/call|tools/list|initialize   which method's answer is broken (default tools/call)`,
  options: { mode: { type: 'string' }, on: { type: 'string' } },
  setup: (flags, common) => {
    const mode = choiceFlag('mode', flags.mode, MODES);
    if (!mode) throw new UsageError('--mode is required');
    const target = choiceFlag('on', flags.on, METHODS) ?? 'tools/call';
    return {
      definition: {
        ...standardDefinition('garbage', common),
        hooks: {
          encodeResponse(request, response) {
            if (request.method !== target) return JSON.stringify(response);
            switch (mode) {
              case 'invalid-json':
                return JSON.stringify(response).slice(0, 30);
              case 'wrong-jsonrpc':
                return JSON.stringify({ ...response, jsonrpc: '1.0' });
              case 'mismatched-id': {
                const id = typeof request.id === 'number' ? request.id + 1000 : `${request.id}-mismatched`;
                return JSON.stringify({ ...response, id });
              }
              case 'schema-violation':
                return JSON.stringify({ jsonrpc: '2.0', id: request.id, result: VIOLATIONS[target] });
            }
          },
        },
      },
    };
  },
});
