/**
 * Form-mode elicitation must not ask the user for secrets (MCP 2025-11-25 and 2026-07-28
 * client/elicitation): a server that needs a password, an API key or a card number sends the user to a URL
 * instead, so the secret never passes through the client or the model.
 *
 * Which field is a secret is judged from its name, title and description, so the patterns are narrow on
 * purpose: a field has to name a password, an API key, a secret, an access or refresh token, a private key
 * or a payment card to fail the run. "token" alone, "code" or "PIN" do not (they are often one-time codes or
 * names of things), so a server that asks for them passes.
 *
 * Legacy servers are seen asking in their own elicitation/create requests, modern ones in the input
 * requests of an InputRequiredResult; both need --call-tools to be asked at all.
 */
import { BOTH_TRANSPORTS, type Check, LEGACY_ONLY, MODERN_ONLY, MODERN_VERSIONS } from '../check.js';
import { isObject } from '../run/session.js';
import { judgeRequests } from './client-requests.js';
import { judge as judgeInputRequests } from './input-requests.js';

const SECRET =
  /\b(pass(word|wd|phrase)|api[ _-]?key|apikey|client[ _-]?secret|secret[ _-]?key|secret|access[ _-]?token|refresh[ _-]?token|bearer[ _-]?token|private[ _-]?key|credit[ _-]?card|card[ _-]?number|cvv|cvc)\b/i;

/** Splits camelCase and snake_case names into words, so `apiKey` and `api_key` read as "api key". */
const words = (text: string): string => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');

/** The form fields of an elicitation request whose name, title or description asks for a secret. */
export function secretFieldIssues(params: unknown): string[] {
  if (!isObject(params) || (params.mode !== undefined && params.mode !== 'form')) return [];
  const schema = params.requestedSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    const texts = [name, ...(isObject(property) ? [property.title, property.description] : [])];
    const hit = texts
      .filter((t): t is string => typeof t === 'string')
      .map((t) => SECRET.exec(words(t)))
      .find((m) => m !== null);
    return hit ? [`form field ${JSON.stringify(name)} asks for a secret ("${hit[0]}")`] : [];
  });
}

const REQUIREMENT =
  'Servers MUST NOT use form mode elicitation to request sensitive information such as passwords, API keys, access tokens, or payment credentials. Servers MUST use URL mode for interactions involving such sensitive information.';
const EXPECTED = 'no form field for a password, API key, secret, access token, private key or payment card';

export const elicitationSecretsChecks: readonly Check[] = [
  {
    id: 'elicitation.form-no-secrets',
    section: 'elicitation',
    level: 'MUST',
    versions: ['2025-11-25'],
    eras: LEGACY_ONLY,
    transports: BOTH_TRANSPORTS,
    judgesWholeRun: true,
    title: 'form-mode elicitation asks for no password, API key or card (--call-tools)',
    requirement: REQUIREMENT,
    source: 'MCP 2025-11-25 client/elicitation (User Interaction Model; Form Mode Security)',
    run: (ctx) =>
      judgeRequests(ctx, 'elicitation/create', (request) => secretFieldIssues(request.params), EXPECTED),
  },
  {
    id: 'mrtr.elicitation-form-no-secrets',
    section: 'mrtr',
    level: 'MUST',
    versions: MODERN_VERSIONS,
    transports: BOTH_TRANSPORTS,
    eras: MODERN_ONLY,
    title: 'form-mode elicitation input requests ask for no password, API key or card (--call-tools)',
    requirement: REQUIREMENT,
    source: 'MCP 2026-07-28 client/elicitation (User Interaction Model; Form Mode Security)',
    run: (ctx) => judgeInputRequests(ctx, 'elicitation/create', (r) => secretFieldIssues(r.params), EXPECTED),
  },
];
