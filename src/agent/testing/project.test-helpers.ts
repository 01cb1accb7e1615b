/**
 * A temporary project for agent tests: a folder with `.git` (so it is a project root), a
 * `.furflycode/config.yaml` naming real well-behaved MCP test servers (each with a `--record` file),
 * an empty FURFLY_HOME, and the environment furfly should see. `npm run build` must have run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverPath } from '../../../test-servers/testing.js';
import { trustProjectConfig } from '../../config/trust.test-helpers.js';
import type { Json } from './fake-anthropic.test-helpers.js';

export const TEST_API_KEY = 'sk-ant-test-0123456789-secret';

export interface ProjectOptions {
  /** Server name -> its category (`read` tools run in parallel; others one by one). */
  servers?: Record<string, 'read' | 'edit' | 'execute'>;
  /**
   * Other test servers by name: which one (e.g. `slow`) and its flags; category execute. A `gated`
   * server is spawned at once but starts only when the test calls `release(name)`: until then it stays
   * "connecting" for as long as the test needs, however slow the machine (no delay to race against).
   */
  otherServers?: Record<string, { script: string; args: string[]; gated?: boolean }>;
  mode?: 'strict' | 'accept-edits' | 'auto' | 'bypass';
  rules?: { tool_glob: string; action: 'allow' | 'ask' | 'deny' }[];
  maxIterations?: number;
  furflyMd?: string;
  /** A provider entry instead of the ANTHROPIC_* fallbacks. */
  provider?: { base_url?: string; model?: string };
  /**
   * The project config declares servers, providers and usually bypass, which need the person's trust: by
   * default the project is trusted in its FURFLY_HOME (as after `furfly trust`); false leaves it untrusted.
   */
  trusted?: boolean;
}

export interface TempProject {
  dir: string;
  env: Record<string, string>;
  recordFile(server: string): string;
  /** The messages a server received so far (its record file, parsed). */
  received(server: string): Json[];
  /** Lets a `gated` server start (its initialize has been waiting in the pipe). */
  release(server: string): void;
  /** Trusts the project's config as it is now (as `furfly trust` would); call again after changing it. */
  trust(): void;
  cleanup(): void;
}

export function tempProject(options: ProjectOptions = {}): TempProject {
  const dir = mkdtempSync(path.join(tmpdir(), 'furfly-agent-'));
  mkdirSync(path.join(dir, '.git'));
  mkdirSync(path.join(dir, '.furflycode'));
  mkdirSync(path.join(dir, 'home'));
  const recordFile = (server: string) => path.join(dir, `${server}.record.jsonl`);
  const mcp_servers: Record<string, unknown> = {};
  for (const [name, category] of Object.entries(options.servers ?? {})) {
    mcp_servers[name] = {
      type: 'stdio',
      command: process.execPath,
      args: [serverPath('well-behaved'), '--record', recordFile(name)],
      category,
      timeout: 20,
    };
  }
  const gateFile = (server: string) => path.join(dir, `${server}.go`);
  for (const [name, { script, args, gated }] of Object.entries(options.otherServers ?? {})) {
    const server = [process.execPath, serverPath(script), ...args, '--record', recordFile(name)];
    mcp_servers[name] = {
      type: 'stdio',
      // A gated server: a shell waits for the gate file, then becomes the server (exec, same pid).
      ...(gated
        ? {
            command: '/bin/sh',
            args: ['-c', 'while [ ! -e "$0" ]; do sleep 0.02; done; exec "$@"', gateFile(name), ...server],
          }
        : { command: server[0], args: server.slice(1) }),
      timeout: 20,
    };
  }
  const config: Record<string, unknown> = {
    permissions: { mode: options.mode ?? 'bypass', rules: options.rules ?? [] },
    mcp_servers,
  };
  if (options.maxIterations !== undefined) config.max_iterations = options.maxIterations;
  if (options.provider) {
    config.providers = [
      {
        name: 'test',
        protocol: 'anthropic',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a config reference, expanded by furfly.
        api_key: '${ANTHROPIC_API_KEY}',
        model: options.provider.model ?? 'claude-test',
        ...(options.provider.base_url ? { base_url: options.provider.base_url } : {}),
      },
    ];
  }
  // JSON is YAML, and needs no YAML writer here.
  writeFileSync(path.join(dir, '.furflycode', 'config.yaml'), JSON.stringify(config, null, 2));
  if (options.furflyMd !== undefined) writeFileSync(path.join(dir, 'FURFLY.md'), options.furflyMd);
  const env = {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    FURFLY_HOME: path.join(dir, 'home'),
    PATH: process.env.PATH ?? '',
  };
  const trust = () => trustProjectConfig(dir, env.FURFLY_HOME);
  if (options.trusted !== false) trust();
  return {
    dir,
    env,
    trust,
    recordFile,
    received(server) {
      let text = '';
      try {
        text = readFileSync(recordFile(server), 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.kind === 'message')
        .map((entry) => ({ ...entry.message, t: entry.t }));
    },
    release: (server) => writeFileSync(gateFile(server), ''),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
