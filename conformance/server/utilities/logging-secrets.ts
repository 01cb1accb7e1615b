/**
 * Log messages must not carry credentials or secrets (MCP 2025-11-25 and 2026-07-28
 * server/utilities/logging, Security). Every notifications/message of the run is judged, in both eras.
 *
 * What counts as a secret is narrow on purpose, so ordinary logs pass: a value in a well-known credential
 * format (a bearer token, a JWT, a PEM private key, an AWS access key id, GitHub, Slack, OpenAI or
 * Anthropic keys), or a non-empty value assigned to a name that says password, API key, client secret,
 * access or refresh token or private key. Masked values (`***`, `[REDACTED]`, `<hidden>`) pass, and so do
 * words like "token" alone ("token count", "tokenizer"). The finding names the kind of secret and where it
 * was; it never repeats the value.
 */
import {
  BOTH_ERAS,
  BOTH_TRANSPORTS,
  type Check,
  EVERY_VERSION,
  fail,
  NotApplicable,
  pass,
} from '../check.js';
import { notificationsOf } from '../run/conversation.js';
import { isObject } from '../run/session.js';

/** Credential formats that are secrets wherever they appear. */
const FORMATS: readonly [string, RegExp][] = [
  ['a bearer token', /\bBearer\s+[A-Za-z0-9\-._~+/]{16,}=*/],
  ['a JWT', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ['a private key', /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/],
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/],
  ['a Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['an API key', /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/],
];

/** A value assigned to a secret's name: `password=…`, `"apiKey": "…"`, `client_secret: …`. */
const ASSIGNED =
  /\b(pass(?:word|wd|phrase)|api[ _-]?key|client[ _-]?secret|secret[ _-]?key|access[ _-]?token|refresh[ _-]?token|private[ _-]?key)["']?\s*[:=]\s*["']?([^\s"',;&}]+)/gi;

/** Values that are already masked or say there is nothing. */
const MASKED =
  /^(?:\*+|x{3,}|\.{3,}|•+|\[?redacted\]?|<[^>]*>|\[[^\]]*\]|\(?hidden\)?|null|undefined|none|true|false|n\/a)$/i;

/** The kinds of secret a log message's data shows (never the secret itself). */
export function logSecretIssues(data: unknown): string[] {
  const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? '');
  const issues = FORMATS.filter(([, pattern]) => pattern.test(text)).map(([kind]) => kind);
  for (const match of text.matchAll(ASSIGNED)) {
    const [, name, value] = match;
    if (value !== undefined && value.length >= 4 && !MASKED.test(value)) issues.push(`a value for "${name}"`);
  }
  return [...new Set(issues)];
}

export const loggingSecretsChecks: readonly Check[] = [
  {
    id: 'logging.no-secrets',
    section: 'logging',
    level: 'MUST',
    versions: EVERY_VERSION,
    eras: BOTH_ERAS,
    transports: BOTH_TRANSPORTS,
    judgesWholeRun: true,
    title: 'log messages carry no credentials or secrets',
    requirement: 'Log messages MUST NOT contain: Credentials or secrets',
    source:
      'MCP 2025-11-25 server/utilities/logging (Security); MCP 2026-07-28 server/utilities/logging (Security)',
    async run(ctx) {
      ctx.session();
      const logs = ctx.sessions.flatMap((session) => notificationsOf(session.log, 'notifications/message'));
      if (logs.length === 0)
        throw new NotApplicable('nothing to judge: no notifications/message came in this run');
      for (const entry of logs) {
        const params = isObject(entry.message.params) ? entry.message.params : {};
        const issues = logSecretIssues(params.data);
        if (issues.length > 0)
          return fail(
            `a log message shows ${issues.join(', ')}`,
            'log messages without credentials or secrets (masked values pass)',
            `level ${JSON.stringify(params.level)}; the value is not repeated here`,
          );
      }
      return pass(`${logs.length} log message(s) checked`);
    },
  },
];
