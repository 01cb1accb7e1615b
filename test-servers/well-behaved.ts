/**
 * well-behaved: follows the specification in every detail, for all three legacy protocol versions and,
 * with `--era modern` or `--era dual`, for 2026-07-28. The conformance suite must pass every check
 * against it in every era.
 *
 *   node dist/test-servers/well-behaved.js [--era legacy|modern|dual] [--page-size N] [--record FILE]
 *                                          [--http --port P --reply json|sse]
 */
import { runServer, standardDefinition } from './lib/cli.js';

runServer({
  name: 'well-behaved',
  usage:
    'Tools: echo, add, slow_echo, large, fail, progress, structured (2025-06-18 and later);\n' +
    'ask_name (MRTR) and regional_echo (x-mcp-header) on 2026-07-28 requests only.',
  setup: (_flags, common) => ({ definition: standardDefinition('well-behaved', common) }),
});
