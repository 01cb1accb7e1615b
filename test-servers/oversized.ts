/**
 * oversized: the well-behaved server, except that every tools/call is answered with one message larger
 * than --bytes (default 17 MiB, just over the client's 16 MiB default limit): a text block of that many
 * "x" characters, written as one line.
 *
 *   node dist/test-servers/oversized.js [--bytes N]
 */
import { integerFlag, runServer, standardDefinition } from './lib/cli.js';

runServer({
  name: 'oversized',
  usage: '  --bytes N   size of the text in the tools/call answer (default 17825792 = 17 MiB)',
  options: { bytes: { type: 'string' } },
  setup: (flags, common) => {
    const bytes = integerFlag('bytes', flags.bytes) ?? 17 * 1024 * 1024;
    return {
      definition: {
        ...standardDefinition('oversized', common),
        hooks: {
          encodeResponse(request, response) {
            if (request.method !== 'tools/call') return JSON.stringify(response);
            // Built directly rather than through JSON.stringify of a result object: one allocation of the
            // payload, no escaping pass over it.
            const prefix = `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"content":[{"type":"text","text":"`;
            return `${prefix}${'x'.repeat(bytes)}"}]}}`;
          },
        },
      },
    };
  },
});
