/**
 * What every command's `--help` says beyond cac's usage, options and examples: its actions, the
 * environment variables it reads and its exit codes (docs/cli.md has the same table for the whole CLI;
 * `help-and-exit-codes.process.slow.test.ts` keeps both in step with what the commands really do).
 *
 * One table here rather than text in each command file, so the wording of the shared parts (FURFLY_HOME,
 * the usage exit code) is the same everywhere.
 */

interface HelpSection {
  title?: string;
  body: string;
}

export interface CommandHelp {
  /** `[syntax, what it does]`, for commands that take an action word. */
  actions?: ReadonlyArray<readonly [string, string]>;
  environment: ReadonlyArray<readonly [string, string]>;
  exitCodes: ReadonlyArray<readonly [number, string]>;
}

const HOME = ['FURFLY_HOME', 'the user folder: config.yaml, trust answers (default ~/.furflycode)'] as const;
/** Shown literally: `$` + `{VAR}` is how a config names a variable. */
const VAR = '$' + '{VAR}';
const VARIABLES = [
  `any ${VAR}`,
  `a config value written as ${VAR} or $` + '{VAR:-default} is read from it',
] as const;
const DOCKER = ['DOCKER_HOST', 'the Docker engine for `sandbox: docker` servers'] as const;
const NO_COLOR = ['NO_COLOR', 'set (to anything): no colour'] as const;
const USAGE = [
  2,
  'usage error: unknown action or option, bad value, missing argument, --cwd not a folder',
] as const;

export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  // The agent: `furfly`, `furfly "task"`, `furfly -p …`.
  '': {
    environment: [
      ['ANTHROPIC_API_KEY', 'the model API key when the config names no provider'],
      ['ANTHROPIC_BASE_URL', 'the model API endpoint when the config names none'],
      HOME,
      DOCKER,
      NO_COLOR,
      VARIABLES,
    ],
    exitCodes: [
      [0, 'done'],
      [1, 'the task failed (model API error, config error)'],
      USAGE,
      [130, 'interrupted (Ctrl-C)'],
      [141, 'the reader of the output went away (furfly … | head)'],
    ],
  },
  mcp: {
    actions: [
      ['list', 'every configured server: status, transport, tools, protocol'],
      ['tools <server>', "a server's tools (or a --stdio / --url / -- <command> target)"],
      ['call <server> <tool> [json]', 'call one tool with JSON arguments and print the result'],
      ['resources <server>', "a server's resources and resource templates"],
      ['read <server> <uri>', 'read one resource and print its content'],
      ['prompts <server>', "a server's prompts and their arguments"],
      ['prompt <server> <name> [args]', 'get one prompt (arguments by position or name=value)'],
      ['skills <server>', "a server's skills (SEP-2640), listed without reading their files"],
      ['skill <server> <name>', 'fetch one skill, checked against its digest, size and frontmatter'],
      ['login <server>', 'log in to an http server that uses OAuth (opens the browser; --no-browser)'],
      ['logout <server>', "revoke and forget a server's stored tokens"],
      ['login|logout --url <url>', 'the same for a URL given on the command line'],
      ['add <name> -- <command> [args…]', 'add a stdio server (or: add <name> <url> for HTTP)'],
      ['add-json <name> <json>', 'add a server from a JSON block as other clients write it'],
      ['get <name>', "one server's entry, with the file it comes from"],
      ['remove <name>', 'remove a server from the user (or --scope project) file'],
      ['import --from <source>', 'copy servers from claude-desktop, claude-code, .mcp.json or a file'],
    ],
    environment: [HOME, DOCKER, ['BROWSER', 'login: the program that opens the login page'], VARIABLES],
    exitCodes: [
      [0, 'done (list: every enabled server connected; call: the tool ran without error)'],
      [1, 'a server or the tool failed, the config has errors, or an edit was refused'],
      USAGE,
    ],
  },
  config: {
    actions: [
      ['show', 'the merged config (--json, --origin names the file and line of each value)'],
      ['validate', 'check every layer and list each error'],
      ['path', 'where the user, project and .mcp.json files are'],
      ['init', 'write a commented starter file (--scope user|project)'],
    ],
    environment: [HOME, VARIABLES],
    exitCodes: [[0, 'done (validate: no errors)'], [1, 'the config has errors or no file was found'], USAGE],
  },
  conformance: {
    environment: [DOCKER, NO_COLOR],
    exitCodes: [
      [0, 'no MUST check failed (with --strict: no SHOULD check either)'],
      [1, 'some MUST check failed (with --strict: or some SHOULD check)'],
      [2, 'the suite could not run: usage error, server cannot start or be reached, version not spoken'],
      [130, 'Ctrl-C stopped a --batch run (its partial report was written)'],
    ],
  },
  sandbox: {
    actions: [
      ['prepare', 'build the runtime image ahead of time'],
      ['clean', 'remove sandbox containers a crash left behind'],
    ],
    environment: [DOCKER],
    exitCodes: [[0, 'done'], [1, 'Docker failed'], USAGE, [3, 'no Docker engine is reachable']],
  },
  permissions: {
    actions: [['check <tool> [json]', 'what the agent would decide for this call, and why']],
    environment: [HOME, VARIABLES],
    exitCodes: [[0, 'the decision was printed (whatever it is)'], [1, 'the config has errors'], USAGE],
  },
  trust: {
    environment: [HOME],
    exitCodes: [
      [0, 'trusted, forgotten (--revoke), or nothing to trust'],
      [1, 'the config has errors or the trust file cannot be written'],
      USAGE,
    ],
  },
};

function table(rows: ReadonlyArray<readonly [string | number, string]>): string {
  const width = Math.max(...rows.map(([key]) => String(key).length));
  return rows.map(([key, text]) => `  ${String(key).padEnd(width)}  ${text}`).join('\n');
}

/** cac's sections for `command` (`''` for the agent and the top level), with ours added before the examples. */
export function withCommandHelp(command: string, sections: HelpSection[]): HelpSection[] {
  const help = COMMAND_HELP[command];
  if (help === undefined) return sections;
  const ours: HelpSection[] = [];
  if (help.actions) ours.push({ title: 'Actions', body: table(help.actions) });
  ours.push({ title: 'Environment', body: table(help.environment) });
  ours.push({ title: 'Exit codes', body: table(help.exitCodes) });
  const examples = sections.findIndex((section) => section.title === 'Examples');
  // cac prints examples flush left; indent them like every other section.
  const indented = sections.map((section) =>
    section.title === 'Examples' ? { ...section, body: section.body.replace(/^(?!\s)/gm, '  $ ') } : section,
  );
  if (examples === -1) return [...indented, ...ours];
  return [...indented.slice(0, examples), ...ours, ...indented.slice(examples)];
}
