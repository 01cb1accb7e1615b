/**
 * noisy: the well-behaved server that also writes non-JSON lines to stdout: a banner at start and a log
 * line before every message it sends. Every protocol message is still a complete line of its own.
 *
 *   node dist/test-servers/noisy.js [--flood] [--flood-lines N]
 *
 *   --flood           before every message (and after the banner) write N noise lines of 100 characters
 *   --flood-lines N   lines per flood (default 2000, about 200 KB)
 */
import { integerFlag, runServer, standardDefinition } from './lib/cli.js';

runServer({
  name: 'noisy',
  usage: `  --flood           write --flood-lines lines of noise before every message
  --flood-lines N   lines per flood (default 2000)`,
  options: { flood: { type: 'boolean' }, 'flood-lines': { type: 'string' } },
  setup: (flags, common) => {
    const floodLines = flags.flood === true ? (integerFlag('flood-lines', flags['flood-lines']) ?? 2000) : 0;
    const flood = (): string[] =>
      Array.from({ length: floodLines }, (_, index) => `[noise ${index}] ${'.'.repeat(85)}`.slice(0, 100));
    let sent = 0;
    return {
      definition: standardDefinition('noisy', common),
      stdio: {
        noise: {
          banner: () => ['*** Noisy MCP test server 1.0 ***', 'Starting up... loaded 7 tools', ...flood()],
          beforeMessage: () => [`[info] ${new Date().toISOString()} sending message #${++sent}`, ...flood()],
        },
      },
    };
  },
});
