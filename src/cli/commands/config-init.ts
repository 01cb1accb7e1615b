/**
 * `furfly config init [--scope user|project]`: a commented starter file, so a person sees the keys and
 * their meaning instead of an empty page. It never overwrites: an existing file may hold their work.
 * The starter is checked by the loader like every other edit (config/edit-file.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeChecked } from '../../config/edit-file.js';
import { formatConfigError } from '../../config/errors.js';
import type { Env } from '../../config/expand.js';
import { loadConfig } from '../../config/load.js';
import { locateConfigFiles } from '../../config/paths.js';
import { terminalLine, terminalText } from '../../terminal/sanitize.js';

const STARTER = `# furfly configuration. Every key: docs/config.md. Check it with \`furfly config validate\`.
# Values may use \${VAR} (an environment variable) or \${VAR:-default}; write $$ for a literal $.

# MCP servers by name. Add more with \`furfly mcp add NAME -- COMMAND [ARGS...]\`.
mcp_servers:
  everything:
    type: stdio               # stdio (a child process) or http (Streamable HTTP: url, headers)
    command: npx
    args: ["-y", "@modelcontextprotocol/server-everything"]
    # env:
    #   API_TOKEN: \${API_TOKEN}   # a reference: the token stays in your environment, not in this file
    enabled: true

# The model. Without providers, furfly uses ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL if set).
# providers:
#   - name: claude
#     protocol: anthropic
#     model: claude-sonnet-4-5
#     api_key: \${ANTHROPIC_API_KEY}

# What the agent may do without asking: strict, accept-edits, auto or bypass.
# permissions:
#   mode: strict
`;

export interface ConfigInitIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Env;
}

export function runConfigInit(scope: string | undefined, cwd: string, io: ConfigInitIo): number {
  const chosen = scope ?? 'user';
  if (chosen !== 'user' && chosen !== 'project') {
    io.stderr(`furfly config: --scope must be one of: user, project (got "${terminalLine(chosen)}")\n`);
    return 2;
  }
  const locations = locateConfigFiles({ cwd, env: io.env });
  const file = chosen === 'user' ? locations.user.path : locations.project?.path;
  if (file === undefined) {
    io.stderr(
      'furfly config: this folder is your home folder, whose .furflycode/config.yaml is the user file: use --scope user\n',
    );
    return 1;
  }
  const emptyHome = mkdtempSync(path.join(tmpdir(), 'furfly-init-'));
  try {
    const result = writeChecked(
      file,
      STARTER,
      (candidate) => {
        const loaded = loadConfig({
          cwd,
          configFile: candidate,
          env: { ...io.env, FURFLY_HOME: emptyHome },
          trustProject: true,
        });
        return loaded.ok ? [] : loaded.errors.map(formatConfigError);
      },
      { privateFile: chosen === 'user', created: true, exclusive: true },
    );
    if (!result.ok) {
      io.stderr(`${result.problems.map(terminalText).join('\n')}\n`);
      return 1;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      io.stderr(
        `furfly config: ${terminalLine(file)} already exists; not overwritten (add servers with furfly mcp add)\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    rmSync(emptyHome, { recursive: true, force: true });
  }
  io.stdout(`wrote ${terminalLine(file)} (${chosen} scope); check it with furfly config validate\n`);
  if (chosen === 'project') {
    io.stdout(
      'its servers need trust before a run uses them: furfly trust (or --trust-project for one run)\n',
    );
  }
  return 0;
}
