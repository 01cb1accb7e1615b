/**
 * The permission decision for one tool call: allow (run it), ask (the user confirms) or deny.
 *
 * The service never lists tools. It learns everything through `ToolFacts`, which the registry
 * implements by asking the tool itself, so a new source of tools (remote servers, plugins) needs no
 * change here.
 *
 * Precedence, first match wins:
 *  1. a deny rule            → deny   (in every mode, bypass included). Rules match any of the tool's
 *     identities (ToolFacts.identitiesOf), so a rule for an MCP tool holds whatever suffix its public
 *     name gets when it collides with a sibling.
 *  2. an ask rule            → ask
 *  3. mode bypass            → allow  (also for paths outside the sandbox: bypass means "I accept the risk")
 *  3b. a call that asks to run outside the OS sandbox (bash's `outside_sandbox`) → deny unless the
 *     sandbox blocked that exact command in this session; then ask, saying plainly that it runs
 *     uncontained (an allow rule or the mode does not lift this). Only `retryOutsideSandbox` (the -p
 *     flag `--retry-outside-sandbox`) skips the question, and the rest of the decision still applies.
 *  4. a path outside the project root and allow_paths → ask (an allow rule does not lift this: rules
 *     are about which tool, allow_paths is about where)
 *  5. an edit tool on a protected path → ask (an allow rule does not lift this either): furfly's own
 *     config (`.furflycode/` in the project, the user config folder) holds the permissions, and `.git/`
 *     holds hooks and config that run code; letting a model rewrite them unasked would undo every rule.
 *     The same holds for a shell command that writes there (by redirection or a known file-writing
 *     command) or into a shell startup file (~/.bashrc, ~/.profile, …), and for one that reads another
 *     process's environment or memory (/proc/<pid>/environ, ptrace tools), where furfly's keys are.
 *  6. an allow rule          → allow  (in any mode)
 *  7. the mode: strict asks; accept-edits runs read and edit; auto also runs commands the
 *     fail-closed check (destructive-commands.ts) fully resolves and finds harmless, but only where
 *     commands run contained (the OS sandbox, `commandContainment`): where no sandbox can run, auto
 *     asks before every command (fail closed); an execute tool without a command (e.g. a remote tool)
 *     asks in auto.
 *
 * Commands are parsed with the bash grammar, which loads asynchronously: callers await `prepare()`
 * once before deciding. Until it has loaded, every command asks (fail closed), even with an allow rule.
 */

import os from 'node:os';
import path from 'node:path';
import { isObject } from '../util/is-object.js';
import { loadBashGrammar } from './bash-grammar.js';
import {
  analyzeCommandLine,
  type CommandAnalysis,
  DESTRUCTIVE_COMMANDS,
  type DestructiveFinding,
} from './destructive-commands.js';
import type { PermissionCategory, PermissionMode } from './modes.js';
import { globCandidates, isInside, PathSandbox, resolveRealPath } from './paths.js';
import { type CompiledRules, compileRules, type PermissionRule, type RuleMatch } from './rules.js';

/** What the service needs to know about a tool; the registry answers these. */
export interface ToolFacts {
  /** Unknown tools must answer 'execute'. */
  categoryOf(toolName: string): PermissionCategory;
  /**
   * Paths the call would touch, as given in the arguments (may be relative to the project root).
   * `args` are the request's prepared arguments, already parsed and validated.
   */
  pathsOf(toolName: string, args: Readonly<Record<string, unknown>>): string[];
  /** The shell command the call would run, if it runs one; `args` as for `pathsOf`. */
  commandOf(toolName: string, args: Readonly<Record<string, unknown>>): string | undefined;
  /** Whether the call asks to run outside the OS sandbox (bash's `outside_sandbox`). Absent: never. */
  leavesSandbox?(toolName: string, args: Readonly<Record<string, unknown>>): boolean;
  /**
   * Every name a permission rule may match for this tool, `toolName` first. A remote tool adds names
   * that survive a collision suffix on its public name (see rules.ts). Absent: just `toolName`.
   */
  identitiesOf?(toolName: string): readonly string[];
}

export interface PermissionSettings {
  mode: PermissionMode;
  rules?: readonly PermissionRule[];
  /** Absolute path of the project root. */
  projectRoot: string;
  /**
   * Extra folders file tools may use without asking: absolute, `~/...` (the home folder) or relative to
   * the project root.
   */
  allowPaths?: readonly string[];
  /** What `~` in `allowPaths` stands for; default the OS's home folder. */
  homeDir?: string;
  /**
   * Folders edit tools may never change without asking (besides any `.furflycode` or `.git` segment,
   * always protected): the caller passes the user config folder (FURFLY_HOME or ~/.furflycode).
   */
  protectedPaths?: readonly string[];
  /**
   * Whether shell commands run contained (the OS sandbox). Absent: the caller vouches for nothing and
   * auto mode judges commands by the destructive-command check alone (tests of that check).
   */
  commandContainment?: CommandContainment;
  /**
   * The user started furfly with `--retry-outside-sandbox` (for `-p`, where nobody can answer): a
   * command the sandbox blocked may run again outside it without the question.
   */
  retryOutsideSandbox?: boolean;
}

/** Whether the OS sandbox can contain commands here; learnt asynchronously (`ready`), then fixed. */
export interface CommandContainment {
  /** Settles once `contained()` answers for good; `prepare()` awaits it. */
  ready: Promise<unknown>;
  /** False until `ready` settled and the sandbox was found working. */
  contained(): boolean;
  /** Why not, for the question: what is missing and how to install it. */
  whyNot(): string;
  /** What the sandbox blocked when it last ran exactly this command in this session, if it did. */
  blockedBefore?(command: string): string | undefined;
}

const TABLE_IDS = new Set(DESTRUCTIVE_COMMANDS.map((rule) => rule.id));

/** Path segments that are protected wherever they appear. */
const PROTECTED_SEGMENTS = new Set(['.furflycode', '.git']);
/**
 * Files that are protected wherever they are (compared in lower case): `.mcp.json` starts servers, and
 * FURFLY.md files go to the model with every request as the project's own instructions.
 */
const PROTECTED_FILES = new Set(['.mcp.json', 'furfly.md']);

/**
 * Files and folders in the home folder that run code or grant access when a shell starts or git and
 * ssh run: a command writing there acts outside this session.
 */
const HOME_STARTUP_FILES = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.inputrc',
  '.gitconfig',
  '.config/git',
  '.config/fish',
  '.ssh',
];

/**
 * What the service decides on: the permission side of the registry's `PreparedCall` (which satisfies
 * this shape), so the decision and the execution see the same arguments, parsed once.
 */
export interface PermissionRequest {
  toolName: string;
  /** The parsed, validated arguments: the very object the tool will be executed with. */
  args: Readonly<Record<string, unknown>>;
}

export type PermissionAction = 'allow' | 'ask' | 'deny';

/** Which part of the policy decided; useful for the UI and for tests. */
export type DecisionSource =
  | 'rule'
  | 'mode'
  | 'sandbox'
  | 'destructive'
  | 'no-sandbox'
  /** A call asks to run outside the OS sandbox: asked in every mode but bypass, never for the session. */
  | 'outside-sandbox';

export interface PermissionDecision {
  action: PermissionAction;
  /** One sentence a person can read. */
  reason: string;
  source: DecisionSource;
}

export class PermissionService {
  private mode: PermissionMode;
  private readonly rules: CompiledRules;
  private readonly sandbox: PathSandbox;
  private readonly projectRoot: string;
  private readonly protectedRoots: string[];
  private readonly homeDir: string;
  private readonly startupFiles: string[];
  private readonly containment: CommandContainment | undefined;
  private readonly retryOutsideSandbox: boolean;
  private toldWhyUncontained = false;

  constructor(
    settings: PermissionSettings,
    private readonly facts: ToolFacts,
  ) {
    this.mode = settings.mode;
    this.rules = compileRules(settings.rules ?? []);
    this.sandbox = new PathSandbox(
      settings.projectRoot,
      settings.allowPaths ?? [],
      settings.homeDir === undefined ? {} : { homeDir: settings.homeDir },
    );
    this.projectRoot = settings.projectRoot;
    this.containment = settings.commandContainment;
    this.retryOutsideSandbox = settings.retryOutsideSandbox === true;
    this.homeDir = settings.homeDir ?? os.homedir();
    this.startupFiles = HOME_STARTUP_FILES.map((f) => path.join(this.homeDir, f));
    this.protectedRoots = (settings.protectedPaths ?? []).map((p) => {
      const resolved = resolveRealPath(settings.projectRoot, p);
      return resolved.ok ? resolved.path : path.resolve(settings.projectRoot, p);
    });
  }

  /**
   * Why `raw` is protected, or undefined. Checks the path as written and as resolved (symlinks), ignoring
   * case: on a case-insensitive file system (macOS and Windows by default) `.GIT/hooks` is `.git/hooks`.
   */
  private protectedReason(raw: string, resolved: string): string | undefined {
    const written = path.resolve(this.projectRoot, raw);
    const lower = (p: string) => p.toLowerCase();
    for (const candidate of [written, resolved]) {
      const relative = path.relative(this.projectRoot, candidate);
      const segments = (relative.startsWith('..') ? candidate : relative).split(path.sep);
      const segment = segments.find((s) => PROTECTED_SEGMENTS.has(lower(s)));
      if (segment) return `${raw} is inside ${segment}/, which edit tools may not change without asking`;
      const file = lower(path.basename(candidate));
      if (PROTECTED_FILES.has(file)) {
        return `${raw} is ${file === '.mcp.json' ? 'the project server list' : 'a note furfly sends the model'} (${path.basename(candidate)}), which edit tools may not change without asking`;
      }
      if (this.protectedRoots.some((root) => isInside(lower(candidate), lower(root)))) {
        return `${raw} is inside the user config folder, which edit tools may not change without asking`;
      }
      if (this.startupFiles.some((file) => isInside(lower(candidate), lower(file)))) {
        return `${raw} is a shell, git or ssh startup file, which edit tools may not change without asking`;
      }
    }
    return undefined;
  }

  /**
   * Loads the bash grammar the command check needs. Await it once before `decide`; it never rejects
   * (a failure makes every command ask, with the reason).
   */
  async prepare(): Promise<void> {
    await Promise.all([
      loadBashGrammar().catch(() => undefined),
      this.containment?.ready.catch(() => undefined),
    ]);
  }

  private analyze(command: string): CommandAnalysis {
    return analyzeCommandLine(command, { homeDir: this.homeDir });
  }

  /** A command that writes to a protected path or reads another process's secrets asks (rule 5). */
  private protectedCommand(toolName: string, analysis: CommandAnalysis): PermissionDecision | undefined {
    const unchecked = analysis.findings.find((f) => f.id === 'grammar-unavailable');
    if (unchecked)
      return { action: 'ask', source: 'destructive', reason: `${toolName}: ${unchecked.description}` };
    const secret = analysis.findings.find((f) => f.scope === 'every-mode');
    if (secret) {
      return {
        action: 'ask',
        source: 'sandbox',
        reason: `${toolName}: ${secret.command} ${secret.description}; commands may not do that without asking`,
      };
    }
    for (const write of analysis.writes) {
      const why = this.protectedWrite(write.path, write.glob);

      if (why) {
        return {
          action: 'ask',
          source: 'sandbox',
          reason: `${toolName}: ${write.command} writes a protected path: ${why.replace('edit tools', 'commands')}`,
        };
      }
    }
    for (const mention of analysis.mentions) {
      if (this.inUserFolder(mention.path)) {
        return {
          action: 'ask',
          source: 'sandbox',
          reason: `${toolName}: ${mention.command} uses ${mention.path}, in furfly's user folder (config and login tokens); commands may not read or change it without asking`,
        };
      }
    }
    return undefined;
  }

  /**
   * Why writing `raw` would change a protected path, or undefined. A glob is also checked as every path
   * it matches now (`.g*t/hooks/x` is `.git/hooks/x` once bash expands it).
   */
  private protectedWrite(raw: string, glob: boolean): string | undefined {
    const candidates = [raw];
    if (glob) {
      const matches = globCandidates(this.projectRoot, raw);
      if (matches === undefined) return `${raw} matches too many paths to check whether one is protected`;
      candidates.push(...matches);
    }
    for (const candidate of candidates) {
      const resolved = resolveRealPath(this.projectRoot, candidate);
      const why = this.protectedReason(
        candidate,
        resolved.ok ? resolved.path : path.resolve(this.projectRoot, candidate),
      );
      if (why) return candidate === raw ? why : `${raw} (as bash expands it) ${why}`;
    }
    return undefined;
  }

  /** Whether `raw` is (or resolves to) furfly's user folder or something in it. */
  private inUserFolder(raw: string): boolean {
    if (this.protectedRoots.length === 0) return false;
    const resolved = resolveRealPath(this.projectRoot, raw);
    const candidates = [path.resolve(this.projectRoot, raw), ...(resolved.ok ? [resolved.path] : [])];
    return candidates.some((c) =>
      this.protectedRoots.some((root) => isInside(c.toLowerCase(), root.toLowerCase())),
    );
  }

  currentMode(): PermissionMode {
    return this.mode;
  }

  /** The user may switch modes during a session. */
  setMode(mode: PermissionMode): void {
    this.mode = mode;
  }

  decide(request: PermissionRequest): PermissionDecision {
    const { toolName, args } = request;
    const match = this.rules.strongestMatch(this.identitiesOf(toolName));
    const rule = match?.rule;
    const matched = match && describeMatch(match, toolName);
    if (rule?.action === 'deny') {
      return { action: 'deny', source: 'rule', reason: `rule deny ${rule.tool_glob} matched ${matched}` };
    }
    if (rule?.action === 'ask') {
      return { action: 'ask', source: 'rule', reason: `rule ask ${rule.tool_glob} matched ${matched}` };
    }
    if (this.mode === 'bypass') {
      return { action: 'allow', source: 'mode', reason: `bypass mode runs ${toolName} without asking` };
    }
    if (isObject(args) && this.facts.leavesSandbox?.(toolName, args) === true) {
      const outside = this.outsideSandbox(toolName, args);
      if (outside) return outside;
    }

    if (!isObject(args)) {
      // Raw text would have to be parsed here a second time; a caller that skipped preparation is asked.
      return {
        action: 'ask',
        source: 'mode',
        reason: `${toolName}: its arguments were not prepared (parsed and validated) before the decision`,
      };
    }
    const paths = this.facts.pathsOf(toolName, args);
    const resolved: string[] = [];
    // furfly's user folder holds the config and the OAuth tokens: reading it is a question too.
    const userFolder = paths.find((raw) => this.inUserFolder(raw));
    if (userFolder !== undefined) {
      return {
        action: 'ask',
        source: 'sandbox',
        reason: `${toolName}: ${userFolder} is in furfly's user folder (config and login tokens), which tools may not read or change without asking`,
      };
    }
    for (const raw of paths) {
      const verdict = this.sandbox.check(raw);
      if (!verdict.inside) return { action: 'ask', source: 'sandbox', reason: verdict.reason };
      resolved.push(verdict.resolved);
    }
    const category = normalizeCategory(this.facts.categoryOf(toolName));
    if (category === 'edit') {
      for (const [i, raw] of paths.entries()) {
        const why = this.protectedReason(raw, resolved[i]!);
        if (why) return { action: 'ask', source: 'sandbox', reason: `${toolName}: ${why}` };
      }
    }
    const command = category === 'execute' ? this.facts.commandOf(toolName, args) : undefined;
    const analysis = command === undefined ? undefined : this.analyze(command);
    if (analysis) {
      const asked = this.protectedCommand(toolName, analysis);
      if (asked) return asked;
    }

    if (rule?.action === 'allow') {
      return { action: 'allow', source: 'rule', reason: `rule allow ${rule.tool_glob} matched ${matched}` };
    }
    return this.byMode(toolName, analysis);
  }

  /**
   * A call that asks to run outside the OS sandbox. Undefined: decide it like any other call (no
   * sandbox runs here, so every command is uncontained anyway and the no-sandbox rule asks; or the
   * user passed --retry-outside-sandbox for a command the sandbox blocked).
   */
  private outsideSandbox(
    toolName: string,
    args: Readonly<Record<string, unknown>>,
  ): PermissionDecision | undefined {
    if (!this.containment?.contained()) return undefined;
    const command = this.facts.commandOf(toolName, args);
    const blocked = command === undefined ? undefined : this.containment.blockedBefore?.(command);
    if (blocked === undefined) {
      return {
        action: 'deny',
        source: 'outside-sandbox',
        reason: `${toolName}: outside_sandbox only runs again a command the OS sandbox blocked in this session, and it has not blocked this one`,
      };
    }
    if (this.retryOutsideSandbox) return undefined;
    return {
      action: 'ask',
      source: 'outside-sandbox',
      reason: `${toolName} would run this command OUTSIDE the OS sandbox, uncontained: it could change any file you can (git hooks, your config), read your credentials and reach any host. The sandbox blocked it before: ${blocked}`,
    };
  }

  /** The tool's identities, its public name always among them (a facts source cannot drop it). */
  private identitiesOf(toolName: string): string[] {
    const extra = this.facts.identitiesOf?.(toolName) ?? [];
    return [toolName, ...extra.filter((name) => typeof name === 'string' && name !== toolName)];
  }

  private byMode(toolName: string, analysis: CommandAnalysis | undefined): PermissionDecision {
    const category = normalizeCategory(this.facts.categoryOf(toolName));
    switch (this.mode) {
      case 'strict':
        return { action: 'ask', source: 'mode', reason: `strict mode asks before every call (${toolName})` };
      case 'accept-edits':
        if (category !== 'execute') {
          return {
            action: 'allow',
            source: 'mode',
            reason: `accept-edits mode runs ${category} tools (${toolName})`,
          };
        }
        return {
          action: 'ask',
          source: 'mode',
          reason: `accept-edits mode asks before execute tools (${toolName})`,
        };
      case 'auto':
        if (category !== 'execute') {
          return {
            action: 'allow',
            source: 'mode',
            reason: `auto mode runs ${category} tools (${toolName})`,
          };
        }
        return this.checkCommand(toolName, analysis);
      default:
        return {
          action: 'ask',
          source: 'mode',
          reason: `unknown permission mode; asking before ${toolName}`,
        };
    }
  }

  private checkCommand(toolName: string, analysis: CommandAnalysis | undefined): PermissionDecision {
    if (analysis === undefined) {
      return {
        action: 'ask',
        source: 'mode',
        reason: `auto mode asks before ${toolName}: it is an execute tool without a command that can be checked`,
      };
    }
    if (this.containment && !this.containment.contained()) {
      // Said in full once; the person has read it by the next question.
      const why = this.toldWhyUncontained
        ? 'no OS sandbox can run here (see furfly doctor)'
        : `no OS sandbox can run here: ${this.containment.whyNot()}. Run \`furfly doctor\` for what to install`;
      this.toldWhyUncontained = true;
      return {
        action: 'ask',
        source: 'no-sandbox',
        reason: `auto mode asks before every command when commands cannot be contained: ${why}`,
      };
    }
    const findings: DestructiveFinding[] = analysis.findings;
    const [first] = findings;
    if (!first) {
      return {
        action: 'allow',
        source: 'mode',
        reason: `auto mode runs ${toolName}: every command in it is resolved and none is destructive`,
      };
    }
    const others = [
      ...new Set(
        findings
          .slice(1)
          .map((f) => f.id)
          .filter((id) => id !== first.id),
      ),
    ];
    const also = others.length > 0 ? ` (also: ${others.join(', ')})` : '';
    return {
      action: 'ask',
      source: 'destructive',
      reason: `${first.command} ${TABLE_IDS.has(first.id) ? 'is destructive' : 'cannot be checked before it runs'}: ${first.description}${also}`,
    };
  }
}

/** `mcp__gh__x_1a2b3c4d (as mcp__gh__x)` when the rule matched another identity than the public name. */
function describeMatch(match: RuleMatch, toolName: string): string {
  return match.matched === toolName ? toolName : `${toolName} (as ${match.matched})`;
}

function normalizeCategory(category: unknown): PermissionCategory {
  return category === 'read' || category === 'edit' ? category : 'execute';
}
