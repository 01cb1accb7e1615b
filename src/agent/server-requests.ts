/**
 * Wires one server's questions to the session: elicitation (mcp/server-requests/elicitation.ts), sampling
 * (sampling.ts) and roots, and the capabilities to declare for them. The interactive session passes a
 * prompter; one-shot mode passes none, and then declares only what it can honour without a person:
 * roots always, sampling for a server whose config says `sampling: allow`, no elicitation (a question
 * that arrives anyway is declined, with a notice).
 */
import type { ResolvedServer } from '../config/types.js';
import type { InputHandlers } from '../mcp/era/input-handlers.js';
import type { ServerRequestSetup } from '../mcp/loader.js';
import { clientCapabilitiesFor } from '../mcp/server-requests/capabilities.js';
import { type ElicitationPrompter, elicitationHandler } from '../mcp/server-requests/elicitation.js';
import type { ClientRoots } from '../mcp/server-requests/roots.js';
import type { Redactor } from '../redaction/index.js';
import type { ModelProvider } from './provider/types.js';
import { type SamplingPolicy, type SamplingPrompter, samplingHandler } from './sampling.js';

export interface ServerRequestPrompter {
  elicitation: ElicitationPrompter;
  sampling: SamplingPrompter;
}

export interface ServerRequestWiring {
  provider: ModelProvider;
  redactor: Redactor;
  roots: ClientRoots;
  /** The interactive session's; absent in one-shot mode. */
  prompter: ServerRequestPrompter | undefined;
  notice: (text: string) => void;
}

export function serverRequestSetup(
  wiring: ServerRequestWiring,
): (name: string, server: ResolvedServer) => ServerRequestSetup {
  const approvedForSession = new Set<string>();
  return (name, server) => {
    const policy: SamplingPolicy = (server as { sampling?: SamplingPolicy }).sampling ?? 'ask';
    const interactive = wiring.prompter !== undefined;
    const inputHandlers: InputHandlers = {
      elicitation: elicitationHandler({ prompter: wiring.prompter?.elicitation, notice: wiring.notice }),
      sampling: samplingHandler({
        server: name,
        policy,
        provider: wiring.provider,
        redactor: wiring.redactor,
        prompter: wiring.prompter?.sampling,
        approvedForSession,
        notice: wiring.notice,
      }),
      roots: async () => ({ roots: wiring.roots.list() }),
    };
    const sampling = policy === 'allow' || (policy === 'ask' && interactive);
    return {
      inputHandlers,
      capabilitiesFor: (version) =>
        clientCapabilitiesFor(version, {
          ...(interactive ? { elicitation: { form: true, url: true } } : {}),
          ...(sampling ? { sampling: { tools: true } } : {}),
          roots: true,
        }),
    };
  };
}
