/** The interactive session's slash commands. Each returns whether the session should end. */
import type { AgentRuntime } from '../../agent/runtime.js';
import { formatUsage } from '../../agent/usage.js';
import { isPermissionMode, MODE_SUMMARIES, PERMISSION_MODES } from '../../permission/index.js';
import { terminalLine } from '../../terminal/sanitize.js';
import { describeServerEvent } from './render.js';
import { ROOTS_COMMAND } from './roots-command.js';

export interface SlashContext {
  runtime: AgentRuntime;
  print(text: string): void;
}

interface SlashCommand {
  summary: string;
  run(context: SlashContext, argument: string): 'quit' | undefined;
}

export const SLASH_COMMANDS: Readonly<Record<string, SlashCommand>> = {
  help: {
    summary: 'list these commands',
    run: ({ print }) => {
      const lines = Object.entries(SLASH_COMMANDS).map(
        ([name, command]) => `  /${name.padEnd(6)} ${command.summary}`,
      );
      print(
        ['Commands:', ...lines, 'Ctrl-C cancels a running turn; at an empty prompt it quits.'].join('\n'),
      );
      return undefined;
    },
  },
  mcp: {
    summary: 'MCP servers: status and tools',
    run: ({ runtime, print }) => {
      const statuses = runtime.mcp.statuses();
      if (statuses.length === 0) {
        print('No MCP servers are configured (mcp_servers in .furflycode/config.yaml).');
        return undefined;
      }
      const lines: string[] = [];
      for (const status of statuses) {
        lines.push(
          `${terminalLine(status.server)} (${status.transport}): ${status.status === 'connecting' ? 'connecting…' : describeServerEvent({ ...status, server: '-' }).replace(/^mcp: - /, '')}`,
        );
        const tools = runtime.registry
          .names()
          .filter(
            (name) =>
              (runtime.registry.get(name) as { server?: unknown } | undefined)?.server === status.server,
          );
        for (const name of tools) lines.push(`  ${terminalLine(name)}`);
      }
      print(lines.join('\n'));
      return undefined;
    },
  },
  mode: {
    summary: 'cycle the permission mode (or /mode <mode>)',
    run: ({ runtime, print }, argument) => {
      const current = runtime.permissions.currentMode();
      let next = PERMISSION_MODES[(PERMISSION_MODES.indexOf(current) + 1) % PERMISSION_MODES.length]!;
      if (argument) {
        if (!isPermissionMode(argument)) {
          print(`Unknown mode "${terminalLine(argument)}"; the modes are ${PERMISSION_MODES.join(', ')}.`);
          return undefined;
        }
        next = argument;
      }
      runtime.permissions.setMode(next);
      print(`Permission mode: ${next} (${MODE_SUMMARIES[next]})`);
      return undefined;
    },
  },
  plan: {
    summary: 'plan mode: only read-only tools',
    run: ({ runtime, print }) => {
      runtime.agent.planMode = true;
      print('Plan mode: only read-only tools are offered and run. /do goes back to doing.');
      return undefined;
    },
  },
  do: {
    summary: 'leave plan mode',
    run: ({ runtime, print }) => {
      runtime.agent.planMode = false;
      print('Plan mode off: every tool is available again (the permission mode still applies).');
      return undefined;
    },
  },
  clear: {
    summary: 'start a new conversation',
    run: ({ runtime, print }) => {
      runtime.agent.clear();
      print('Conversation cleared.');
      return undefined;
    },
  },
  cost: {
    summary: 'token usage per turn and in total',
    run: ({ runtime, print }) => {
      const turns = runtime.ledger.list();
      if (turns.length === 0) {
        print('No model requests yet.');
        return undefined;
      }
      const lines = turns.map((turn, i) => {
        const prompt = turn.prompt.length > 40 ? `${turn.prompt.slice(0, 39)}…` : turn.prompt;
        return `  turn ${i + 1} (${turn.requests} request${turn.requests === 1 ? '' : 's'}, "${terminalLine(prompt)}"): ${formatUsage(turn.usage)}`;
      });
      print(['Token usage:', ...lines, `  total: ${formatUsage(runtime.ledger.total())}`].join('\n'));
      return undefined;
    },
  },
  exit: {
    summary: 'quit (shuts the MCP servers down)',
    run: () => 'quit',
  },
  roots: ROOTS_COMMAND,
};

export function runSlashCommand(line: string, context: SlashContext): 'quit' | undefined {
  const [word = '', ...rest] = line.slice(1).trim().split(/\s+/);
  // Own properties only: `/constructor` or `/toString` must not find Object.prototype's members.
  const command = Object.hasOwn(SLASH_COMMANDS, word) ? SLASH_COMMANDS[word] : undefined;
  if (!command) {
    context.print(`Unknown command /${terminalLine(word)}; /help lists the commands.`);
    return undefined;
  }
  return command.run(context, rest.join(' '));
}
