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
cli.parse();
