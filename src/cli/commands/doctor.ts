/**
 * `furfly doctor`: is this machine set up for furfly? Whether the OS sandbox works here (and, if not,
 * what is missing and the command that installs it), whether a model API key is there, whether the
 * config is valid, and whether each enabled server can be reached. Exit 0 when all is well, 1 when a
 * check failed. `runDoctor` takes its output streams so tests can run it in-process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CAC } from 'cac';
import { chooseProvider } from '../../agent/providers.js';
import { loadSessionConfig } from '../../agent/session-config.js';
import type { ResolvedServer } from '../../config/types.js';
import { stopOsSandbox } from '../../sandbox/os-sandbox.js';
import { checkOsSandbox } from '../../sandbox/os-sandbox-check.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';

export interface DoctorIo {
  readonly stdout: (text: string) => void;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
  readonly configFile?: string;
}

type Line = { ok: boolean; text: string };

export async function runDoctor(io: DoctorIo): Promise<number> {
  const lines: Line[] = [];
  const say = (line: Line) => {
    lines.push(line);
    io.stdout(`${line.ok ? 'ok  ' : 'FAIL'} ${line.text}\n`);
  };

  const sandbox = await checkOsSandbox(io.env);
  await stopOsSandbox();
  if (sandbox.ok) say({ ok: true, text: `OS sandbox: works (${sandbox.detail})` });
  else {
    say({
      ok: false,
      text:
        `OS sandbox: not available: ${terminalLine(sandbox.detail)}. Without it, auto mode asks before every command.` +
        (sandbox.install ? `\n     install: ${sandbox.install}` : ''),
    });
  }

  const loaded = loadSessionConfig({
    cwd: io.cwd,
    env: io.env,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
    ...(io.configFile === undefined ? {} : { configFile: io.configFile }),
  });
  if (!loaded.ok) {
    say({ ok: false, text: `config: has problems\n${indent(terminalText(loaded.message))}` });
  } else {
    const files = loaded.loaded.files.inEffect.length;
    say({
      ok: true,
      text: `config: valid (${files === 0 ? 'no config file; defaults apply' : `${files} file(s)`})`,
    });
    const provider = chooseProvider(loaded.config.providers, io.env);
    say(
      provider.ok
        ? { ok: true, text: `API key: present (${provider.settings.name}, model ${provider.settings.model})` }
        : {
            ok: false,
            text: `API key: missing\n${indent(terminalText(provider.message.replace(/^furfly: /, '')))}`,
          },
    );
    for (const [name, server] of Object.entries(loaded.config.mcp_servers)) {
      if (!server.enabled) continue;
      say(await checkServer(name, server, loaded.projectRoot, io.env));
    }
  }
  return lines.every((line) => line.ok) ? 0 : 1;
}

/** Reachable: a stdio server's command is found; an HTTP server answers at all (any status). */
async function checkServer(
  name: string,
  server: ResolvedServer,
  projectRoot: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Line> {
  const label = `server ${terminalLine(name)}`;
  if (server.type === 'stdio') {
    const found = findCommand(server.command, server.cwd ?? projectRoot, env.PATH ?? '');
    return found
      ? { ok: true, text: `${label}: command found (${terminalLine(found)})` }
      : { ok: false, text: `${label}: command not found: ${terminalLine(server.command)}` };
  }
  try {
    const response = await fetch(server.url, { method: 'GET', signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return { ok: true, text: `${label}: reachable (HTTP ${response.status})` };
  } catch (error) {
    return { ok: false, text: `${label}: not reachable: ${terminalLine((error as Error).message)}` };
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `     ${line}`)
    .join('\n');
}

function findCommand(command: string, cwd: string, pathVariable: string): string | undefined {
  if (command.includes('/')) {
    const resolved = path.resolve(cwd, command);
    return existsSync(resolved) ? resolved : undefined;
  }
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function registerDoctorCommand(cli: CAC): void {
  cli
    .command('doctor', 'Check this machine: OS sandbox, API key, config, servers')
    .option('--cwd <dir>', 'Run as if started in <dir>')
    .option('--config <file>', 'Use <file> instead of the project config file (the user file still applies)')
    .example('furfly doctor')
    .action(async (options: { cwd?: string; config?: string }) => {
      process.exitCode = await runDoctor({
        stdout: (text) => process.stdout.write(text),
        cwd: path.resolve(options.cwd ?? process.cwd()),
        env: process.env,
        ...(options.config === undefined ? {} : { configFile: String(options.config) }),
      });
    });
}
