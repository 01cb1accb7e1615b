/**
 * `furfly config show [--json] [--origin] | validate | path`: look at the merged config without running anything.
 * The command logic (`runConfigCommand`) takes its output streams and environment as arguments, so tests can
 * run it in-process; `registerConfigCommands` only connects it to cac and the real process.
 */
import path from 'node:path';
import type { CAC } from 'cac';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { type ConfigFiles, type LoadResult, loadConfig } from '../../config/load.js';
import { renderJson, renderYaml } from '../../config/render.js';
import { configSecrets } from '../../config/secrets.js';
import { Redactor } from '../../redaction/index.js';
import { terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';

export interface ConfigCommandOptions {
  readonly json?: boolean;
  readonly origin?: boolean;
  /** `--cwd DIR`: act as if started there. */
  readonly cwd?: string;
  /** `--config FILE`: use FILE instead of the project's config file. */
  readonly config?: string;
}

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
}

export const CONFIG_ACTIONS = ['show', 'validate', 'path'] as const;

/** Runs one `config` action; returns the exit code. Never prints a secret (see config/secrets.ts). */
export function runConfigCommand(
  action: string | undefined,
  options: ConfigCommandOptions,
  io: CommandIo,
): number {
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const load = (): LoadResult =>
    loadConfig({
      cwd,
      configFile: typeof options.config === 'string' ? options.config : undefined,
      env: io.env,
    });

  switch (action) {
    case 'show': {
      const result = load();
      if (!result.ok) return reportErrors(result.errors.map(formatConfigError), io);
      const render = options.json === true ? renderJson : renderYaml;
      const redactor = new Redactor(configSecrets(result.config, { ...result, env: io.env }));
      io.stdout(render(result.tree, { origins: options.origin === true, redactor }));
      return 0;
    }
    case 'validate': {
      const result = load();
      if (!result.ok) return reportErrors(result.errors.map(formatConfigError), io);
      io.stdout(`config is valid (${result.files.inEffect.map(terminalLine).join(', ')})\n`);
      return 0;
    }
    case 'path': {
      const result = load();
      io.stdout(
        options.json === true ? `${terminalSafeJson(result.files, 2)}\n` : describeFiles(result.files),
      );
      return result.files.inEffect.length > 0 ? 0 : 1;
    }
    default:
      io.stderr(
        `${action === undefined ? 'missing action' : `unknown action "${terminalLine(String(action))}"`}: use furfly config ${CONFIG_ACTIONS.join(' | ')}\n`,
      );
      return 1;
  }
}

/** Config errors quote key paths and file names, which the project's files choose: made safe here. */
function reportErrors(lines: readonly string[], io: CommandIo): number {
  io.stderr(
    `${lines.map(terminalText).join('\n')}\n${lines.length} config error${lines.length === 1 ? '' : 's'}\n`,
  );
  return 1;
}

function describeFiles(files: ConfigFiles): string {
  const line = (label: string, status: ConfigFiles['user'] | undefined, absent: string): string => {
    if (status === undefined) return `${label}${absent}`;
    const notes = [status.explicit ? 'from --config' : '', status.found ? '' : 'not found, skipped'].filter(
      Boolean,
    );
    return `${label}${terminalLine(status.path)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  };
  return `${[
    line('user:    ', files.user, ''),
    line('project: ', files.project, '(none: no .furflycode/ or .git at or above the working directory)'),
  ].join('\n')}\n`;
}

export function registerConfigCommands(cli: CAC): void {
  cli
    .command('config [action]', 'Inspect the merged config: show [--json] [--origin] | validate | path')
    .option('--json', 'Print JSON instead of YAML')
    .option('--origin', 'Show where each value came from (file:line:col or default)')
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .example('furfly config show --origin')
    .example('furfly config validate')
    .action((action: string | undefined, options: ConfigCommandOptions) => {
      process.exitCode = runConfigCommand(action, options, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        env: process.env,
        cwd: process.cwd(),
      });
    });
}
