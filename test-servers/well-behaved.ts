/**
 * well-behaved: follows the specification in every detail, for all three protocol versions.
 * The conformance suite must pass every check against it.
 *
 *   node dist/test-servers/well-behaved.js [--page-size N] [--record FILE] [--http --port P --reply json|sse]
 */
import { runServer, standardDefinition } from './lib/cli.js';

runServer({
  name: 'well-behaved',
  usage: 'Tools: echo, add, slow_echo, large, fail, progress, structured (2025-06-18 and later).',
  setup: (_flags, common) => ({ definition: standardDefinition('well-behaved', common) }),
});
