/**
 * stubborn: the well-behaved server that ignores stdin EOF and SIGTERM (also SIGINT and SIGHUP), so only
 * SIGKILL stops it. Over --http it ignores the same signals.
 *
 *   node dist/test-servers/stubborn.js
 */
import { runServer, standardDefinition } from './lib/cli.js';

runServer({
  name: 'stubborn',
  usage: 'Ignores stdin EOF, SIGTERM, SIGINT and SIGHUP; only SIGKILL stops it.',
  setup: (_flags, common) => ({
    definition: standardDefinition('stubborn', common),
    stdio: { ignoreEof: true, ignoreSignals: true },
  }),
});
