/**
 * The OS sandbox of one session's bash calls: the policy from the config, a temp folder of the
 * session's own, the question about hosts the config does not list, and whether the sandbox can run
 * here at all (the permission service fails closed where it cannot).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userConfigDir } from '../config/paths.js';
import { readProjectHosts, recordProjectHost } from '../config/project-hosts.js';
import { projectKey } from '../config/project-trust.js';
import type { ResolvedConfig } from '../config/types.js';
import type { CommandContainment, PermissionMode } from '../permission/index.js';
import { bashPolicy } from '../sandbox/os-policy.js';
import {
  type HostDecision,
  type OsSandboxProbe,
  probeOsSandbox,
  stopOsSandbox,
} from '../sandbox/os-sandbox.js';
import type { BashSandbox } from '../tools/builtins/index.js';
import type { PermissionAsker } from './permission-prompt.js';

export interface CommandSandboxOptions {
  config: ResolvedConfig;
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** The permission mode now: bypass runs commands uncontained. */
  mode: () => PermissionMode;
  /** The interactive question; absent in -p (an unlisted host is refused). */
  asker?: PermissionAsker;
}

export interface CommandSandbox {
  bash: BashSandbox;
  containment: CommandContainment;
  /** Removes the session's temp folder and stops the sandbox's proxies. */
  close(): Promise<void>;
}

export function createCommandSandbox(options: CommandSandboxOptions): CommandSandbox {
  const homeDir = options.homeDir ?? options.env.HOME ?? os.homedir();
  const sandboxConfig = options.config.sandbox;
  let probe: OsSandboxProbe | undefined;
  const ready = probeOsSandbox(options.env).then((result) => {
    probe = result;
  });
  let tempDir: string | undefined;
  const userDir = userConfigDir(options.env, homeDir);
  const sessionHosts = new Set<string>();
  /** What the sandbox blocked, by the exact command: the only commands that may run again outside it. */
  const blockedCommands = new Map<string, string>();
  let currentProjectRoot: string | undefined;

  const bash: BashSandbox = {
    policyFor(projectRoot) {
      if (options.mode() === 'bypass' || !probe?.available) return null;
      tempDir ??= mkdtempSync(path.join(os.tmpdir(), 'furfly-session-'));
      currentProjectRoot = projectRoot;
      return bashPolicy({
        projectRoot,
        tempDir,
        homeDir,
        furflyUserDir: userDir,
        extraReadOnly: sandboxConfig.read_only,
        extraUnreadable: sandboxConfig.unreadable,
        extraWritable: sandboxConfig.writable,
        allowedHosts: [
          ...sandboxConfig.allowed_hosts,
          // "Always for this project" answers, from the user folder (never from the repository).
          ...readProjectHosts(userDir, projectKey(projectRoot)),
          ...sessionHosts,
        ],
      });
    },
    // The runtime's violation line quotes the reason, so the result names the config line in -p.
    onUnlistedHost: async (host, port) => decideHost(host, port),
    onBlocked(command, blocked) {
      blockedCommands.set(command, blocked);
    },
  };

  /** Questions open now, by host: a second ask about the same host waits for this answer. */
  const openQuestions = new Map<string, Promise<HostDecision>>();

  function decideHost(host: string, port: number | undefined): Promise<HostDecision> {
    const open = openQuestions.get(host);
    if (open) return open;
    const decision = askAboutHost(host, port).finally(() => openQuestions.delete(host));
    openQuestions.set(host, decision);
    return decision;
  }

  async function askAboutHost(host: string, port: number | undefined): Promise<HostDecision> {
    const configLine = `sandbox: { allowed_hosts: ["${host}"] }`;
    // A host allowed for the commands (config, project, session) is in every command's own list:
    // asked about anyway, the connection is not the running command's but another sandboxed
    // process's (a server, whose hosts are its allowed_hosts alone). The runtime does not say whose
    // a connection is.
    const commandHosts = [
      ...sandboxConfig.allowed_hosts,
      ...(currentProjectRoot === undefined ? [] : readProjectHosts(userDir, projectKey(currentProjectRoot))),
      ...sessionHosts,
    ];
    if (commandHosts.includes(host)) {
      return {
        allow: false,
        reason: `${host} is allowed for bash commands only, not for other sandboxed processes`,
      };
    }
    if (!options.asker) {
      return {
        allow: false,
        reason: `${host} is not in sandbox.allowed_hosts and furfly runs in -p, where nobody can answer; to allow it, add this line to the config (.furflycode/config.yaml, or the user config): ${configLine}`,
      };
    }
    const answer = await options.asker.ask(
      {
        toolName: 'bash',
        input: { host, ...(port ? { port } : {}) },
        reason: `a command wants to reach ${host}${port ? `:${port}` : ''}, which sandbox.allowed_hosts does not list`,
        kind: 'host',
      },
      new AbortController().signal,
    );
    if (answer === 'deny') return { allow: false, reason: `the user did not allow ${host}` };
    if (answer === 'session') {
      sessionHosts.add(host);
      return { allow: true, forCommand: true };
    }
    if (answer === 'always') {
      sessionHosts.add(host);
      if (currentProjectRoot !== undefined) {
        try {
          recordProjectHost(userDir, projectKey(currentProjectRoot), host);
        } catch {
          // Unwritable user folder: the host stays allowed for this session, as if answered so.
        }
      }
      return { allow: true, forCommand: true };
    }
    return { allow: true };
  }

  return {
    bash,
    containment: {
      ready,
      contained: () => probe?.available === true,
      blockedBefore: (command) => blockedCommands.get(command),
      whyNot: () => {
        if (!probe) return 'the sandbox check has not finished';
        if (probe.available) return '';
        return probe.install ? `${probe.reason} (install: ${probe.install})` : probe.reason;
      },
    },
    async close() {
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      await stopOsSandbox();
    },
  };
}
