/**
 * Chooses the model provider: the first `providers` entry of the config, with `ANTHROPIC_API_KEY`
 * and `ANTHROPIC_BASE_URL` filling what it leaves out (or everything, when there is none).
 * Never puts a key into a message.
 */
import type { Provider } from '../config/types.js';

/** Current in @anthropic-ai/sdk's model list and not on its deprecation list (units.test.ts checks). */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface ProviderSettings {
  name: string;
  apiKey: string;
  model: string;
  baseUrl: string;
}

export type ProviderChoice = { ok: true; settings: ProviderSettings } | { ok: false; message: string };

export function chooseProvider(
  providers: readonly Provider[],
  env: Readonly<Record<string, string | undefined>>,
): ProviderChoice {
  const configured = providers.find((p) => p.protocol === 'anthropic');
  // ANTHROPIC_API_KEY belongs with ANTHROPIC_BASE_URL (or the default endpoint): it never fills the empty
  // api_key of a provider that sets its own base_url, which a project file may have chosen (#13).
  const ownEndpoint = nonEmpty(configured?.base_url) !== undefined;
  const apiKey = nonEmpty(configured?.api_key) ?? (ownEndpoint ? undefined : nonEmpty(env.ANTHROPIC_API_KEY));
  if (apiKey === undefined) return { ok: false, message: missingKeyMessage(configured) };
  return {
    ok: true,
    settings: {
      name: configured?.name ?? 'anthropic',
      apiKey,
      model: nonEmpty(configured?.model) ?? DEFAULT_MODEL,
      baseUrl: nonEmpty(configured?.base_url) ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? DEFAULT_BASE_URL,
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

function missingKeyMessage(configured: Provider | undefined): string {
  const where = configured
    ? `The provider "${configured.name}" in the config has an empty api_key` +
      (nonEmpty(configured.base_url) === undefined
        ? '.'
        : ` (ANTHROPIC_API_KEY is not sent to the base_url ${configured.base_url} it sets).`)
    : 'No provider is configured and ANTHROPIC_API_KEY is not set.';
  return [
    `furfly: no API key for the model. ${where}`,
    'Set one of these:',
    '  export ANTHROPIC_API_KEY=<your key>          (and optionally ANTHROPIC_BASE_URL=<url>)',
    '  or in .furflycode/config.yaml:',
    '    providers:',
    '      - name: anthropic',
    '        protocol: anthropic',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a config reference shown literally.
    '        api_key: ${ANTHROPIC_API_KEY}',
    `        model: ${DEFAULT_MODEL}`,
  ].join('\n');
}
