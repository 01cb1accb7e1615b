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
import { formatOrigin } from '../../config/origin.js';
import { renderJson, renderYaml } from '../../config/render.js';
import { configSecrets } from '../../config/secrets.js';
import { displayPath, toPointer } from '../../config/tree.js';
import { escapeInvisible } from '../../config/trust.js';
import { ignoredReason, trustNotices, withheldNote } from '../../config/trust-report.js';
import { Redactor } from '../../redaction/index.js';
import { terminalLine, terminalSafeJson, terminalText } from '../../terminal/sanitize.js';
import { actionUsage } from '../action-usage.js';
import { runConfigInit } from './config-init.js';

export interface ConfigCommandOptions {
  readonly json?: boolean;
  readonly origin?: boolean;
  /** `--cwd DIR`: act as if started there. */
  readonly cwd?: string;
  /** `--config FILE`: use FILE instead of the project's config file. */
  readonly config?: string;
  /** `--trust-project`: show the config as a run with `--trust-project` would use it. */
  readonly trustProject?: boolean;
  /** `init --scope user|project`. */
  readonly scope?: string;
}

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
}

export const CONFIG_ACTIONS = ['show', 'validate', 'path', 'init'] as const;

/** Runs one `config` action; returns the exit code. Never prints a secret (see config/secrets.ts). */
export function runConfigCommand(
  action: string | undefined,
  options: ConfigCommandOptions,
  io: CommandIo,
): number {
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const load = (trustProject = options.trustProject === true ? true : undefined): LoadResult =>
    loadConfig({
      cwd,
      configFile: typeof options.config === 'string' ? options.config : undefined,
      env: io.env,
      trustProject,
    });

  switch (action) {
    case 'show': {
      // What a run would use: an untrusted project's risky parts are left out, and said so.
      const result = load();
      if (!result.ok) return reportErrors(result.errors.map(formatConfigError), io);
      for (const notice of trustNotices(result)) io.stderr(`${terminalText(notice)}\n`);
      const annotations = trustAnnotations(result);
      const redactor = new Redactor(configSecrets(result.config, { ...result, env: io.env }));
      if (options.json === true) {
        io.stdout(
          renderJson(result.tree, {
            origins: options.origin === true,
            redactor,
            extraJson: annotations.json,
          }),
        );
      } else {
        io.stdout(
          renderYaml(result.tree, {
            origins: options.origin === true,
            redactor,
            notes: annotations.notes,
            footer: annotations.footer,
          }),
        );
      }
      return 0;
    }
    case 'validate': {
      // Every part of the files is checked, trusted or not: a person editing the project file wants its
      // mistakes now, not after trusting it.
      const result = load(true);
      if (!result.ok) return reportErrors(result.errors.map(formatConfigError), io);
      io.stdout(`config is valid (${result.files.inEffect.map(terminalLine).join(', ')})\n`);
      const inRun = options.trustProject === true ? undefined : load();
      if (inRun?.ok === true && inRun.trust.status === 'not-trusted') {
        io.stdout(
          'note: the project config is not trusted; a run leaves out its parts that need trust (see furfly config show --origin, furfly trust)\n',
        );
      }
      return 0;
    }
    case 'init':
      return runConfigInit(options.scope, cwd, io);
    case 'path': {
      const result = load();
      io.stdout(
        options.json === true ? `${terminalSafeJson(result.files, 2)}\n` : describeFiles(result.files),
      );
      return result.files.inEffect.length > 0 ? 0 : 1;
    }
    default:
      io.stderr(`furfly config: ${actionUsage('config', action, CONFIG_ACTIONS)}\n`);
      return 2;
  }
}

type Loaded = Extract<LoadResult, { ok: true }>;

/** What `show --origin` adds: a note next to entries whose credentials were held back, and the ignored parts. */
function trustAnnotations(result: Loaded): {
  notes: Map<string, string>;
  footer: string[];
  json: Record<string, unknown>;
} {
  const notes = new Map(result.withheld.map((w) => [toPointer(w.entry), withheldNote(w)]));
  const ignored = result.trust.ignored.map((part) => ({
    path: escapeInvisible(displayPath(part.path)),
    origin: escapeInvisible(formatOrigin(part.origin)),
    reason: ignoredReason(part),
  }));
  const footer =
    ignored.length === 0
      ? []
      : [
          'not in effect: the project config is not trusted (furfly trust, or --trust-project for one run):',
          ...ignored.map((i) => `  ${i.path}  ${i.origin}  ${i.reason}`),
        ];
  const json = {
    trust: result.trust.status,
    ignored,
    withheld: result.withheld.map((w) => ({
      entry: displayPath(w.entry),
      secrets: w.secrets,
      changed: w.changed,
      note: withheldNote(w),
    })),
  };
  return { notes, footer, json };
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
    // Other clients' .mcp.json only when there is one: most projects have none.
    ...(files.mcpJson?.found === true ? [line('shared:  ', files.mcpJson, '')] : []),
  ].join('\n')}\n`;
}

export function registerConfigCommands(cli: CAC): void {
  cli
    .command(
      'config [action]',
      'Inspect the merged config: show [--json] [--origin] | validate | path | init [--scope user|project]',
    )
    .option('--json', 'Print JSON instead of YAML')
    .option('--origin', 'Show where each value came from (file:line:col or default)')
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .option('--trust-project', 'Show the config as a run with --trust-project would use it')
    .option('-s, --scope <scope>', 'init: write the user file (default) or the project file')
    .example('furfly config show --origin')
    .example('furfly config validate')
    .example('furfly config init --scope project')
    .action((action: string | undefined, options: ConfigCommandOptions) => {
      process.exitCode = runConfigCommand(action, options, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        env: process.env,
        cwd: process.cwd(),
      });
    });
}
