/**
 * crashing: the well-behaved server until the chosen moment, then it writes a message to stderr and
 * exits with the chosen code, without answering what it was handling.
 *
 *   node dist/test-servers/crashing.js --crash-at handshake|call|after-calls [--after N] [--exit-code C] [--stderr TEXT]
 *
 *   handshake     on receiving initialize (never answered)
 *   call          on receiving tools/call number N+1 (the first N are answered; default N=0: the first call)
 *   after-calls   right after writing the response to tools/call number N (default N=1)
 */
import { choiceFlag, integerFlag, runServer, standardDefinition, UsageError } from './lib/cli.js';
import type { JsonRpcRequest } from './lib/protocol.js';

const POINTS = ['handshake', 'call', 'after-calls'] as const;

runServer({
  name: 'crashing',
  usage: `  --crash-at handshake|call|after-calls   when to crash (required)
  --after N         calls answered before crashing (default 0 for call, 1 for after-calls)
  --exit-code C     exit code (default 1)
  --stderr TEXT     message written to stderr just before exiting`,
  options: {
    'crash-at': { type: 'string' },
    after: { type: 'string' },
    'exit-code': { type: 'string' },
    stderr: { type: 'string' },
  },
  setup: (flags, common) => {
    const point = choiceFlag('crash-at', flags['crash-at'], POINTS);
    if (!point) throw new UsageError('--crash-at is required');
    const after = integerFlag('after', flags.after) ?? (point === 'after-calls' ? 1 : 0);
    const exitCode = integerFlag('exit-code', flags['exit-code']) ?? 1;
    const message =
      typeof flags.stderr === 'string'
        ? flags.stderr
        : `crashing: simulated crash (${point}, after ${after} calls)`;
    const crash = (): never => {
      // stderr is a pipe or file, written synchronously, so the message is out before the exit.
      process.stderr.write(`${message}\n`);
      process.exit(exitCode);
    };
    let calls = 0;
    const isCall = (request: JsonRpcRequest) => request.method === 'tools/call';
    return {
      definition: {
        ...standardDefinition('crashing', common),
        hooks: {
          beforeRequest(request) {
            if (point === 'handshake' && request.method === 'initialize') crash();
            if (point === 'call' && isCall(request) && calls++ === after) crash();
          },
          afterResponse(request) {
            // On the next turn of the loop: over HTTP the response body is sent only after this hook.
            if (point === 'after-calls' && isCall(request) && ++calls === after) setImmediate(crash);
          },
        },
      },
    };
  },
});
