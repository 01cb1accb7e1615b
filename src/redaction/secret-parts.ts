/**
 * Which parts of a header value or a URL are secret, and how a URL is shown with them masked.
 * Pure string functions: the config, the CLI and the conformance suite all describe their secrets
 * with these, so a header or URL means the same wherever it was given.
 */
import { MASK } from './redactor.js';

/**
 * Headers that carry content negotiation, not credentials: their values are not secrets (masking
 * `application/json` in every output would protect nothing). Lower case.
 */
const NOT_CREDENTIAL_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'mcp-protocol-version',
]);

/** The secret parts of every header in `headers` (see `headerValueSecrets`). */
export function headerSecrets(headers: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) =>
    NOT_CREDENTIAL_HEADERS.has(name.toLowerCase()) ? [] : headerValueSecrets(value),
  );
}

/**
 * The secret parts of one header value: the whole value, each token of it (split on whitespace, `,`
 * and `;`), the value of each `name=value` token (quotes removed), and for `Basic <base64>` the
 * decoded `user:password` and both halves. `Bearer abc123…` thus makes `abc123…` a secret too, so a
 * server echoing just the token is caught. Scheme words come back as well; the redactor drops those
 * too short or common to mask.
 */
export function headerValueSecrets(value: string): string[] {
  const parts = [value];
  const tokens = value.split(/[\s,;]+/).filter((token) => token !== '');
  tokens.forEach((token, i) => {
    parts.push(token);
    const equals = token.indexOf('=');
    // `a=b` but not base64 padding (`abc==`): there the whole token is the value.
    if (equals > 0 && equals < token.length - 1) parts.push(unquote(token.slice(equals + 1)));
    if (i > 0 && /^basic$/i.test(tokens[i - 1]!)) parts.push(...basicCredentials(token));
  });
  return parts;
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** `user:password`, `user` and `password` from a Basic credential, when it decodes to readable text. */
function basicCredentials(encoded: string): string[] {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return [];
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Control characters or replacement characters mean this was not text.
  if (colon === -1 || /[\u0000-\u001f\u007f\ufffd]/.test(decoded)) return [];
  return [decoded, decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * The secret parts of a URL: the password (or the user name when it stands alone, as in
 * `https://<token>@host`), every query parameter value and every `name=value` value in the fragment
 * (`#access_token=…`); each both as written and decoded. Nothing for a string that is not a URL.
 */
export function urlSecrets(url: string): string[] {
  const parts = splitUrl(url);
  if (parts === undefined) return [];
  const raw: string[] = [];
  if (parts.password !== undefined) raw.push(parts.password);
  else if (parts.user !== undefined) raw.push(parts.user);
  for (const section of [parts.query, parts.fragment]) {
    for (const pair of section?.split('&') ?? []) {
      const equals = pair.indexOf('=');
      if (equals !== -1) raw.push(pair.slice(equals + 1));
    }
  }
  return raw.flatMap((value) => [value, decoded(value)]).filter((value) => value !== '');
}

/**
 * The URL as shown to people: `https://user:***@host/path?token=***#…`. The password (or a lone user
 * name), every query value and every fragment `name=value` value become `***`; scheme, host, path and
 * names stay. A string that is not a URL comes back unchanged.
 */
export function maskUrl(url: string): string {
  const parts = splitUrl(url);
  if (parts === undefined) return url;
  let userinfo = '';
  if (parts.password !== undefined) userinfo = `${parts.user ?? ''}:${MASK}@`;
  else if (parts.user !== undefined) userinfo = `${MASK}@`;
  const maskPairs = (section: string, bareToo: boolean): string =>
    section
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals === -1) return bareToo && pair !== '' ? MASK : pair;
        return equals === pair.length - 1 ? pair : `${pair.slice(0, equals + 1)}${MASK}`;
      })
      .join('&');
  // A bare query word may be a token (`?sk-…`); a bare fragment is an anchor (`#install`).
  const query = parts.query === undefined ? '' : `?${maskPairs(parts.query, true)}`;
  const fragment = parts.fragment === undefined ? '' : `#${maskPairs(parts.fragment, false)}`;
  return `${parts.scheme}://${userinfo}${parts.host}${parts.path}${query}${fragment}`;
}

interface UrlParts {
  scheme: string;
  user?: string;
  password?: string;
  host: string;
  path: string;
  query?: string;
  fragment?: string;
}

/**
 * A URL cut into its parts as written (no normalisation, so masking keeps everything else exactly).
 * Only `scheme://authority…` strings without whitespace count as URLs.
 */
function splitUrl(url: string): UrlParts | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]*)([^?#\s]*)(?:\?([^#\s]*))?(?:#(\S*))?$/.exec(url);
  if (match === null) return undefined;
  const [, scheme, authority, path, query, fragment] = match;
  const at = authority!.lastIndexOf('@');
  const parts: UrlParts = { scheme: scheme!, host: authority!.slice(at + 1), path: path! };
  if (at !== -1) {
    const userinfo = authority!.slice(0, at);
    const colon = userinfo.indexOf(':');
    if (colon === -1) parts.user = userinfo;
    else {
      parts.user = userinfo.slice(0, colon);
      parts.password = userinfo.slice(colon + 1);
    }
  }
  if (query !== undefined) parts.query = query;
  if (fragment !== undefined) parts.fragment = fragment;
  return parts;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
