#!/usr/bin/env node
/**
 * The `furfly` command: each command group registers itself from `commands/`, so adding one touches
 * only the table below. The default command (no group name) is the agent.
 *
 * Groups are imported only when the command line needs them: `furfly config show` should not pay for
 * loading the Anthropic SDK, Docker clients and the conformance suite (start-up went from ~0.6 s to a
 * fraction of that, which matters for scripts and for tests that run the CLI many times).
 */
import { createRequire } from 'node:module';
import { type CAC, cac } from 'cac';
import { stopOsSandbox } from '../sandbox/os-sandbox.js';
import { terminalText } from '../terminal/sanitize.js';
import { PROMPT_FROM_STDIN } from './command-names.js';
import { cwdProblem } from './cwd-option.js';
import { withCommandHelp } from './help-sections.js';
import { rawOptionValue } from './raw-option-value.js';

type Register = (cli: CAC) => void;

const GROUPS: Record<string, () => Promise<Register>> = {
  config: async () => (await import('./commands/config.js')).registerConfigCommands,
  mcp: async () => (await import('./commands/mcp.js')).registerMcpCommands,
  conformance: async () => (await import('./commands/conformance.js')).registerConformanceCommand,
  sandbox: async () => (await import('./commands/sandbox.js')).registerSandboxCommands,
  permissions: async () => (await import('./commands/permissions.js')).registerPermissionsCommands,
  trust: async () => (await import('./commands/trust.js')).registerTrustCommand,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctorCommand,
};
const loadAgent = async (): Promise<Register> => (await import('./commands/agent.js')).registerAgentCommand;

const require = createRequire(import.meta.url);
const { version } = require('../../../package.json') as { version: string };

/** Which groups this command line needs: its group, or (top-level help) all of them, or the agent. */
function neededGroups(argv: readonly string[]): Array<() => Promise<Register>> {
  const args = argv.slice(2);
  const first = args[0];
  if (first !== undefined && Object.hasOwn(GROUPS, first)) return [GROUPS[first]!];
  if (args.includes('--version') || args.includes('-v')) return [];
  if (args.includes('--help') || args.includes('-h')) return [...Object.values(GROUPS), loadAgent];
  return [loadAgent];
}

// `furfly help` and `furfly help <command>` are `--help`, as people type them after git and npm.
if (process.argv[2] === 'help') {
  const topic = process.argv[3];
  process.argv.splice(2, process.argv.length - 2, ...(topic === undefined ? [] : [topic]), '--help');
}

for (let i = 2; i < process.argv.length - 1; i++) {
  if (process.argv[i] === '--') break;
  if ((process.argv[i] === '-p' || process.argv[i] === '--prompt') && process.argv[i + 1] === '-') {
    process.argv[i + 1] = PROMPT_FROM_STDIN;
  }
}

const cli = cac('furfly');
for (const load of neededGroups(process.argv)) (await load())(cli);
// Actions, environment and exit codes for the command asked about (`furfly mcp --help`), or the agent's.
cli.help((sections) => withCommandHelp(cli.matchedCommand?.name ?? '', sections));
cli.version(version);

try {
  cli.parse(process.argv, { run: false });
  // `--cwd` is checked here, once, so every command answers a missing folder alike (exit 2).
  const cwdUsage = cli.options.help
    ? undefined
    : cwdProblem(process.cwd(), rawOptionValue(process.argv.slice(2), ['--cwd']) ?? cli.options.cwd);
  if (cwdUsage) {
    process.stderr.write(`furfly: ${cwdUsage}\n`);
    process.exitCode = 2;
  } else {
    await cli.runMatchedCommand();
  }
} catch (error) {
  // cac reports usage mistakes (unknown option, missing argument) by throwing; a person needs one line,
  // not a stack trace. Its messages name the option, never a value.
  if (error instanceof Error && error.name === 'CACError') {
    // Point at the help of the command that was typed (`furfly mcp --help`), not the top level's.
    const command = cli.matchedCommand?.name ? ` ${cli.matchedCommand.name}` : '';
    process.stderr.write(
      `furfly${command}: ${terminalText(error.message)}\nRun \`furfly${command} --help\` for usage.\n`,
    );
    process.exitCode = 2;
  } else {
    throw error;
  }
} finally {
  // The OS sandbox's network proxies (started by a bash call or a server under `sandbox: os`) would
  // keep the process alive after the command is done; a no-op when nothing started them.
  await stopOsSandbox();
}
