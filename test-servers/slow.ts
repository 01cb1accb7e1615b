/**
 * slow: the well-behaved server with a delay before it handles initialize, server/discover, tools/list or
 * tools/call. `never` means that request is never answered (a notifications/cancelled still stops the
 * wait). With `--era dual`, delaying both initialize and server/discover stands for a server that takes
 * seconds to start; `--discover-delay never` alone, for a legacy server silent to requests it does not know.
 *
 *   node dist/test-servers/slow.js [--initialize-delay MS|never] [--discover-delay MS|never]
 *                                  [--list-delay MS|never] [--call-delay MS|never]
 */
import { delayFlag, runServer, standardDefinition } from './lib/cli.js';
import { wait } from './lib/protocol.js';

runServer({
  name: 'slow',
  usage: `  --initialize-delay MS|never  wait before answering initialize
  --discover-delay MS|never    wait before answering server/discover
  --list-delay MS|never        wait before answering tools/list
  --call-delay MS|never        wait before handling tools/call (the tool's own time comes on top)`,
  options: {
    'initialize-delay': { type: 'string' },
    'discover-delay': { type: 'string' },
    'list-delay': { type: 'string' },
    'call-delay': { type: 'string' },
  },
  setup: (flags, common) => {
    const delays: Record<string, number | 'never' | undefined> = {
      initialize: delayFlag('initialize-delay', flags['initialize-delay']),
      'server/discover': delayFlag('discover-delay', flags['discover-delay']),
      'tools/list': delayFlag('list-delay', flags['list-delay']),
      'tools/call': delayFlag('call-delay', flags['call-delay']),
    };
    return {
      definition: {
        ...standardDefinition('slow', common),
        hooks: {
          beforeRequest(request, signal) {
            const delay = delays[request.method];
            return delay === undefined ? undefined : wait(delay, signal);
          },
        },
      },
    };
  },
});
