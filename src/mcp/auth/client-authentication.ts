/**
 * Client authentication with a client secret at the token and revocation endpoints.
 *
 * `client_secret_post` is oauth4webapi's own. `client_secret_basic` is written here because RFC 6749,
 * section 2.3.1 says the client id and secret are "encoded using the application/x-www-form-urlencoded
 * encoding algorithm" before they go into the Basic credentials, and that algorithm (the URL Standard's
 * urlencoded serializer) leaves `*`, `-`, `.`, `_` and ASCII letters and digits as they are and writes a
 * space as `+`. oauth4webapi also percent-encodes `-`, `.`, `_`, `!`, `~`, `*`, `'`, `(` and `)`, which
 * turns `pre-registered-client` into `pre%2Dregistered%2Dclient`; a server that decodes the Basic
 * credentials without form-decoding them (as many do, and the official MCP conformance suite's) then
 * sees a client id that is not the one it issued. With the encoding RFC 6749 names, every id made only
 * of those characters goes out exactly as it was issued, and servers that do form-decode still agree.
 */
import * as oauth from 'oauth4webapi';

export type SecretMethod = 'client_secret_basic' | 'client_secret_post';

/** The value as `application/x-www-form-urlencoded` serializes it. */
export function formUrlEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/** HTTP Basic client authentication (RFC 6749, section 2.3.1). */
export function clientSecretBasic(clientSecret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${formUrlEncode(client.client_id)}:${formUrlEncode(clientSecret)}`;
    headers.set('authorization', `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`);
  };
}

/** The oauth4webapi client authentication for a client secret sent by `method`. */
export function secretAuth(method: SecretMethod, clientSecret: string): oauth.ClientAuth {
  return method === 'client_secret_post'
    ? oauth.ClientSecretPost(clientSecret)
    : clientSecretBasic(clientSecret);
}
