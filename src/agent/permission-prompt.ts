/**
 * Between the permission service and the person: turns a decision into "run it" or "do not run it,
 * and here is what the model should be told".
 *
 * - `deny` never runs.
 * - `ask` goes to the asker (the interactive session) with three answers: allow once, allow this tool
 *   for the rest of the session, deny. Without an asker (one-shot `-p`), nobody can answer, so the call
 *   is refused with a message that tells the model why and how the user can allow it.
 * - A tool allowed for the session skips later questions, except sandbox questions (a path outside
 *   the project): those are about where, not which tool, so each one is asked again.
 */
import type { PermissionDecision, PermissionService } from '../permission/index.js';

export type PermissionAnswer = 'once' | 'session' | 'deny';

export interface PermissionQuestion {
  toolName: string;
  input: unknown;
  reason: string;
}

export interface PermissionAsker {
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer>;
}

export type GateOutcome = { run: true } | { run: false; status: 'denied' | 'refused'; message: string };

export class PermissionGate {
  private readonly allowedForSession = new Set<string>();

  constructor(
    readonly service: PermissionService,
    private readonly asker?: PermissionAsker,
  ) {}

  sessionAllowances(): string[] {
    return [...this.allowedForSession];
  }

  async check(toolName: string, input: unknown, signal: AbortSignal): Promise<GateOutcome> {
    const decision = this.service.decide({ toolName, args: input });
    if (decision.action === 'allow') return { run: true };
    if (decision.action === 'deny') {
      return {
        run: false,
        status: 'denied',
        message: `Permission denied: ${decision.reason}. The user's configuration forbids this call; do not retry it.`,
      };
    }
    if (decision.source !== 'sandbox' && this.allowedForSession.has(toolName)) return { run: true };
    if (!this.asker) return { run: false, status: 'refused', message: refusalForOneShot(toolName, decision) };

    const answer = await this.asker.ask({ toolName, input, reason: decision.reason }, signal);
    if (answer === 'session') this.allowedForSession.add(toolName);
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

function refusalForOneShot(toolName: string, decision: PermissionDecision): string {
  return [
    `Not run: this call needs the user's approval (${decision.reason}), and furfly runs in one-shot mode (-p), where nobody can answer.`,
    `The user can allow it with a rule in the config (permissions.rules: - tool_glob: "${toolName}", action: allow)`,
    'or by running furfly with a looser --permission-mode (accept-edits, auto or bypass). Continue without this call if you can.',
  ].join(' ');
}
