/**
 * Reads the `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 section 3, RFC 9728 section 5.1):
 * `Bearer resource_metadata="https://…", scope="a b", error="insufficient_scope"`.
 *
 * The header may hold several challenges (`Basic realm="x", Bearer scope="y"`); only the Bearer one
 * counts. Parameter values are tokens or quoted strings (with backslash escapes). Anything malformed
 * yields what was read so far: a challenge is a hint, and a missing hint only costs a discovery step.
 */

export interface BearerChallenge {
  /** Parameter names in lower case. */
  readonly params: Readonly<Record<string, string>>;
}

export function bearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (header === undefined) return undefined;
  const challenges = parseChallenges(header);
  const bearer = challenges.find((c) => c.scheme === 'bearer');
  return bearer === undefined ? undefined : { params: bearer.params };
}

/** The `DPoP` challenge (RFC 9449 section 7.1): the same parameters, `error="use_dpop_nonce"` among them. */
export function dpopChallenge(header: string | undefined): BearerChallenge | undefined {
  if (header === undefined) return undefined;
  const dpop = parseChallenges(header).find((c) => c.scheme === 'dpop');
  return dpop === undefined ? undefined : { params: dpop.params };
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

function parseChallenges(header: string): Challenge[] {
  const out: Challenge[] = [];
  let rest = header;
  let current: Challenge | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    rest = rest.replace(/^[\s,]+/, '');
    if (rest === '') break;
    const name = TOKEN.exec(rest)?.[0];
    if (name === undefined) break;
    const after = rest.slice(name.length);
    const param = /^\s*=\s*/.exec(after);
    // `name=` begins a parameter; a token68 (`abc==`) also has `=`, but only right after the scheme.
    if (param !== null && current !== undefined && !/^\s*=\s*(,|$)/.test(after)) {
      rest = after.slice(param[0].length);
      let value: string;
      if (rest.startsWith('"')) {
        let i = 1;
        value = '';
        while (i < rest.length && rest[i] !== '"') {
          if (rest[i] === '\\' && i + 1 < rest.length) i++;
          value += rest[i];
          i++;
        }
        rest = rest.slice(i + 1);
      } else {
        value = TOKEN.exec(rest)?.[0] ?? '';
        rest = rest.slice(value.length);
      }
      const key = name.toLowerCase();
      if (!Object.hasOwn(current.params, key)) current.params[key] = value;
      continue;
    }
    if (param !== null && current !== undefined) {
      // A token68 such as `abc=`: part of the challenge, not a parameter.
      rest = after.replace(/^\s*=+/, '');
      continue;
    }
    current = { scheme: name.toLowerCase(), params: Object.create(null) as Record<string, string> };
    out.push(current);
    rest = after;
  }
  return out;
}

/** A space-separated scope string as a list (empty entries dropped). */
export function scopeList(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(/\s+/).filter((s) => s !== '');
}
