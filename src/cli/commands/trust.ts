/**
 * `furfly trust [--revoke] [--cwd DIR] [--config FILE]`: trust the current project's config, or forget it.
 *
 * `furfly trust` shows everything the project config asks for that needs trust (servers with their
 * commands and URLs, providers, a looser permission mode, allow rules, allow_paths; see config/trust.ts)
 * and records the trust in the user folder for exactly those parts: when any of them changes, furfly treats
 * the project as untrusted again. Typing the command is the decision, so it does not ask again. A config
 * with errors is not trusted (its errors are shown). `--revoke` forgets the project.
 * Exit codes: 0 done (or nothing to trust / nothing to revoke), 1 the config has errors or the trust file
 * cannot be written.
 */
import path from 'node:path';
import type { CAC } from 'cac';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { loadConfig } from '../../config/load.js';
import { userConfigDir } from '../../config/paths.js';
import { projectKey } from '../../config/project-trust.js';
import { escapeInvisible } from '../../config/trust.js';
import { describeRiskyParts } from '../../config/trust-report.js';
import { recordTrust, revokeTrust } from '../../config/trust-store.js';

export interface TrustCommandOptions {
  readonly revoke?: boolean;
  readonly cwd?: string;
  readonly config?: string;
}

export interface TrustIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
  readonly cwd: string;
  readonly homeDir?: string;
}

export function runTrustCommand(options: TrustCommandOptions, io: TrustIo): number {
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const userDir = userConfigDir(io.env, io.homeDir);
  // Loaded as if trusted: what is trusted must be a valid config, every part of it checked.
  const loaded = loadConfig({
    cwd,
    configFile: typeof options.config === 'string' ? options.config : undefined,
    env: io.env,
    homeDir: io.homeDir,
    trustProject: true,
  });
  if (options.revoke === true) {
    const key = loaded.trust?.projectKey ?? projectKey(loaded.files.projectRoot ?? cwd);
    try {
      const removed = revokeTrust(userDir, key);
      io.stdout(
        removed
          ? `no longer trusted: ${escapeInvisible(key)} (its project config's risky parts are ignored again)\n`
          : `${escapeInvisible(key)} was not trusted; nothing to revoke\n`,
      );
      return 0;
    } catch (error) {
      io.stderr(`furfly trust: cannot write the trust file in ${userDir} (${errorCode(error)})\n`);
      return 1;
    }
  }
  if (!loaded.ok) {
    const lines = loaded.errors.map(formatConfigError);
    io.stderr(
      `${lines.join('\n')}\n${lines.length} config error${lines.length === 1 ? '' : 's'}\n` +
        'furfly trust: fix the config first; a config with errors is not trusted\n',
    );
    return 1;
  }
  const { trust } = loaded;
  if (trust.risky.length === 0) {
    io.stdout('nothing to trust: the project config asks for nothing that needs trust\n');
    return 0;
  }
  io.stdout(`${describeRiskyParts(trust)}\n`);
  try {
    recordTrust(userDir, trust.projectKey, trust.fingerprint);
  } catch (error) {
    io.stderr(`furfly trust: cannot write the trust file in ${userDir} (${errorCode(error)})\n`);
    return 1;
  }
  io.stdout(
    `trusted: ${escapeInvisible(trust.projectKey)}. furfly asks again if any of these parts change ` +
      '(undo: furfly trust --revoke)\n',
  );
  return 0;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'error';
}

export function registerTrustCommand(cli: CAC): void {
  cli
    .command('trust', "Trust this project's config (its servers, providers, looser permissions), or --revoke")
    .option('--revoke', 'Forget the trust of this project')
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .example('furfly trust')
    .example('furfly trust --revoke')
    .action((options: TrustCommandOptions) => {
      process.exitCode = runTrustCommand(options, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        env: process.env,
        cwd: process.cwd(),
      });
    });
}
