/**
 * URL-mode elicitation URLs must not carry the end-user's credentials (MCP 2025-11-25 client/elicitation,
 * Safe URL Handling). Judged on every URL a server offers for URL-mode elicitation: in its own
 * elicitation/create requests and in the `data.elicitations` of its -32042 errors.
 *
 * Narrow on purpose: a URL fails when it has a password in its user information, or a query or fragment
 * parameter named for a credential (password, API key, client secret, access or refresh token, private
 * key) with a value. An opaque id, a `state`, a `code` or a parameter called `token` pass: those are how
 * such links usually tie a browser back to the request. Personal data beyond credentials is left to a
 * human. The finding names the parameter, never its value.
 */
import { BOTH_TRANSPORTS, type Check, fail, LEGACY_ONLY, NotApplicable, pass } from '../check.js';
import { isErrorResponse, isObject } from '../run/session.js';

const CREDENTIAL_NAME =
  /^(pass(word|wd|phrase)?|pwd|api[_-]?key|apikey|client[_-]?secret|secret[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|private[_-]?key|auth[_-]?token|bearer)$/i;

/** The credentials a URL shows, named (never with their values); [] for a URL that shows none. */
export function urlCredentialIssues(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return []; // Whether the URL is valid is elicitation.request-params' judgement.
  }
  const issues: string[] = [];
  if (parsed.password !== '') issues.push('a password in the user information');
  const fragment = new URLSearchParams(parsed.hash.replace(/^#/, ''));
  for (const params of [parsed.searchParams, fragment])
    for (const [name, value] of params)
      if (value !== '' && CREDENTIAL_NAME.test(name)) issues.push(`a value for the parameter "${name}"`);
  return [...new Set(issues)];
}

export const elicitationUrlSecretsChecks: readonly Check[] = [
  {
    id: 'elicitation.url-no-credentials',
    section: 'elicitation',
    level: 'MUST',
    versions: ['2025-11-25'],
    eras: LEGACY_ONLY,
    transports: BOTH_TRANSPORTS,
    judgesWholeRun: true,
    title: 'URL-mode elicitation URLs carry no passwords, keys or tokens',
    requirement:
      'Servers MUST NOT include sensitive information about the end-user, including credentials, personally identifiable information, etc., in the URL sent to the client in a URL elicitation request.',
    source: 'MCP 2025-11-25 client/elicitation (Safe URL Handling)',
    async run(ctx) {
      ctx.session();
      const urls: string[] = [];
      for (const entry of ctx.runLog) {
        const message = entry.message;
        if (entry.direction !== 'in' || !isObject(message)) continue;
        if (
          message.method === 'elicitation/create' &&
          isObject(message.params) &&
          message.params.mode === 'url'
        )
          urls.push(String(message.params.url));
        if (isErrorResponse(message) && message.error.code === -32042) {
          const data = isObject(message.error.data) ? message.error.data : {};
          for (const elicitation of Array.isArray(data.elicitations) ? data.elicitations : [])
            if (isObject(elicitation) && typeof elicitation.url === 'string') urls.push(elicitation.url);
        }
      }
      if (urls.length === 0)
        throw new NotApplicable('nothing to judge: the server offered no URL-mode elicitation');
      for (const url of urls) {
        const issues = urlCredentialIssues(url);
        if (issues.length > 0)
          return fail(
            `a URL-mode elicitation URL shows ${issues.join(', ')}`,
            'URLs without credentials (an opaque id ties the page to the request)',
            'the URL is not repeated here: it holds a credential',
          );
      }
      return pass(`${urls.length} elicitation URL(s) checked`);
    },
  },
];
