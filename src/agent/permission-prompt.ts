/**
 * Between the permission service and the person: turns a decision into "run it" or "do not run it,
 * and here is what the model should be told".
 *
 * - `deny` never runs.
 * - `ask` goes to the asker (the interactive session) with three answers: allow once, allow this tool
 *   for the rest of the session, deny. Without an asker (one-shot `-p`), nobody can answer, so the call
 *   is refused with a message that tells the model why and how the user can allow it.
 * - A tool allowed for the session skips later questions, except sandbox questions (a path outside
 *   the project): those are about where, not which tool, so each one is asked again; and questions
 *   about running a command outside the OS sandbox, which are asked each time and never remembered.
 */
import type {
  PermissionDecision,
  PermissionMode,
  PermissionRequest,
  PermissionService,
} from '../permission/index.js';

/** `always`: only for a `host` question, "always for this project" (stored in the user folder). */
export type PermissionAnswer = 'once' | 'session' | 'always' | 'deny';

export interface PermissionQuestion {
  toolName: string;
  input: unknown;
  reason: string;
  /**
   * Which answers the question offers besides allow once and deny: a call (default) also "this tool
   * for the session"; `host` (the OS sandbox's network question) also "this host for the session" and
   * "always for this project"; `outside-sandbox` nothing more (leaving the sandbox is never remembered).
   */
  kind?: 'call' | 'host' | 'outside-sandbox';
}

export interface PermissionAsker {
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer>;
}

/** What the gate may learn about a tool to word a refusal (the registry provides it). */
export interface GateToolFacts {
  categoryOf(toolName: string): string;
  commandOf(toolName: string, args: Readonly<Record<string, unknown>>): string | undefined;
  /** The names rules may match (see PermissionService); the advice names a stable one. */
  identitiesOf?(toolName: string): readonly string[];
}

export type GateOutcome =
  | { run: true }
  | { run: false; status: 'denied' | 'refused' | 'cancelled'; message: string };

export class PermissionGate {
  private readonly allowedForSession = new Set<string>();

  constructor(
    readonly service: PermissionService,
    private readonly asker?: PermissionAsker,
    private readonly facts?: GateToolFacts,
  ) {}

  sessionAllowances(): string[] {
    return [...this.allowedForSession];
  }

  /** `call` is a prepared call (the registry's `PreparedCall`): its arguments are parsed once, already. */
  async check(call: PermissionRequest, signal: AbortSignal): Promise<GateOutcome> {
    const { toolName, args } = call;
    // The command check needs the bash grammar; loading it is asynchronous (once per process).
    await this.service.prepare();
    const decision = this.service.decide({ toolName, args });
    if (decision.action === 'allow') return { run: true };
    if (decision.action === 'deny' && decision.source === 'outside-sandbox') {
      return {
        run: false,
        status: 'denied',
        message: `Not run: ${decision.reason}. Run the command normally (in the sandbox) first.`,
      };
    }
    if (decision.action === 'deny') {
      return {
        run: false,
        status: 'denied',
        message: `Permission denied: ${decision.reason}. The user's configuration forbids this call; do not retry it.`,
      };
    }
    // Questions about where (a path outside the project) or about leaving the OS sandbox are asked
    // each time: allowing the tool for the session did not answer them.
    const askedEachTime = decision.source === 'sandbox' || decision.source === 'outside-sandbox';
    if (!askedEachTime && this.allowedForSession.has(toolName)) return { run: true };
    if (!this.asker) {
      const category = this.facts?.categoryOf(toolName);
      return {
        run: false,
        status: 'refused',
        message: refusalForOneShot(toolName, decision, {
          category: category === 'read' || category === 'edit' ? category : 'execute',
          runsCommand: this.facts?.commandOf(toolName, args) !== undefined,
          mode: this.service.currentMode(),
          ruleName: stableRuleName(toolName, this.facts?.identitiesOf?.(toolName) ?? []),
        }),
      };
    }

    const answer = await this.asker.ask(
      {
        toolName,
        input: args,
        reason: decision.reason,
        ...(decision.source === 'outside-sandbox' ? { kind: 'outside-sandbox' as const } : {}),
      },
      signal,
    );
    // Ctrl-C ends the question too; the person cancelled the turn, they did not decline this call.
    if (signal.aborted)
      return { run: false, status: 'cancelled', message: 'Not run: the user cancelled the turn.' };
    // Leaving the sandbox is never allowed for the session: "session" counts as once there.
    if (answer === 'session' && decision.source !== 'outside-sandbox') this.allowedForSession.add(toolName);
    if (answer === 'deny') {
      return {
        run: false,
        status: 'denied',
        message: `Permission denied: the user declined this call to ${toolName}. Ask them before trying something similar.`,
      };
    }
    return { run: true };
  }
}

export interface RefusalFacts {
  category: 'read' | 'edit' | 'execute';
  /** The tool runs a shell command that auto mode can check (bash); MCP tools do not. */
  runsCommand: boolean;
  mode: PermissionMode;
  /** The name to put in a suggested rule; the tool name when absent. */
  ruleName?: string;
}

/**
 * The name an allow rule should use: a remote tool's `mcp__<server>__<original>` when its public name
 * differs (a collision suffix, which can change mid-session), unless glob syntax in the original name
 * would make the rule mean something else.
 */
export function stableRuleName(toolName: string, identities: readonly string[]): string {
  const stable = identities.find((name) => name !== toolName && name.startsWith('mcp__'));
  return stable !== undefined && !/[*?[\]{}\\,]/.test(stable) ? stable : toolName;
}

/**
 * Why a call was refused in one-shot mode and the one change that would let it run, worded from
 * what decided (see PermissionService.decide): advice that cannot work (an allow rule against an ask
 * rule, accept-edits for a command) would send the user round in circles.
 */
export function refusalForOneShot(
  toolName: string,
  decision: PermissionDecision,
  facts: RefusalFacts,
): string {
  const allowRule = `an allow rule for it in the config (permissions.rules: - tool_glob: "${facts.ruleName ?? toolName}", action: allow)`;
  let advice: string;
  if (decision.source === 'rule') {
    advice =
      'An ask rule in the config requires approval for this tool; allow rules and permission modes do not override an ask rule (not even bypass), so only removing or changing that rule lets it run in -p mode.';
  } else if (
    decision.source === 'sandbox' &&
    /may not (?:change|do that) without asking/.test(decision.reason)
  ) {
    advice =
      "The path is protected (.git, .furflycode, the user config folder or a shell startup file), or the command reads another process's environment or memory: it runs without asking only with --permission-mode bypass.";
  } else if (decision.source === 'sandbox') {
    advice =
      'The path is outside the project: the user can add its folder to permissions.allow_paths in the config, or run furfly with --permission-mode bypass (an allow rule does not lift this).';
  } else if (decision.source === 'outside-sandbox') {
    advice =
      'The OS sandbox blocked this command, and running it again outside the sandbox (uncontained) needs the user: in -p that happens only when furfly is started with --retry-outside-sandbox. Prefer a way that works inside the sandbox, or tell the user what was blocked.';
  } else if (decision.source === 'no-sandbox') {
    advice =
      'No OS sandbox can run on this machine, so auto mode asks before every command (fail closed). The user can install what `furfly doctor` names, or run furfly with --permission-mode bypass (commands then run uncontained).';
  } else if (decision.source === 'destructive') {
    advice = `The command is destructive or cannot be checked before it runs, so auto mode asks before it. It runs without asking only with --permission-mode bypass, or with ${allowRule}, which allows every command, destructive or not. Prefer a safer way to reach the goal.`;
  } else if (facts.category !== 'execute') {
    advice = `The user can allow it with ${allowRule}, or run furfly with --permission-mode accept-edits (auto and bypass also run ${facts.category} tools).`;
  } else if (facts.runsCommand) {
    advice = `The user can allow it with ${allowRule}, or run furfly with --permission-mode auto (runs commands that are not destructive) or bypass.`;
  } else {
    advice = `The user can allow it with ${allowRule}, or run furfly with --permission-mode bypass (accept-edits and auto still ask before this tool).`;
  }
  return [
    `Not run: this call needs the user's approval (${decision.reason}), and furfly runs in one-shot mode (-p), where nobody can answer.`,
    advice,
    'Continue without this call if you can.',
  ].join(' ');
}
