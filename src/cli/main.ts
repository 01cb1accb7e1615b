#!/usr/bin/env node
/**
 * The `furfly` command: each command group registers itself from `commands/`, so adding one touches
 * only this list. The default command (no group name) is the agent.
 */
import { createRequire } from 'node:module';
import { cac } from 'cac';
import { registerAgentCommand } from './commands/agent.js';
import { registerConfigCommands } from './commands/config.js';
import { registerConformanceCommand } from './commands/conformance.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerSandboxCommands } from './commands/sandbox.js';

const require = createRequire(import.meta.url);
const { version } = require('../../../package.json') as { version: string };

const cli = cac('furfly');
registerConfigCommands(cli);
registerMcpCommands(cli);
registerConformanceCommand(cli);
registerSandboxCommands(cli);
registerAgentCommand(cli);
cli.help();
cli.version(version);

try {
  cli.parse(process.argv, { run: false });
  await cli.runMatchedCommand();
} catch (error) {
  // cac reports usage mistakes (unknown option, missing argument) by throwing; a person needs one line,
  // not a stack trace. Its messages name the option, never a value.
  if (error instanceof Error && error.name === 'CACError') {
    process.stderr.write(`furfly: ${error.message}\nRun \`furfly --help\` for usage.\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
