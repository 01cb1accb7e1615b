/**
 * An `HttpRequester` that adds an `HttpAuthorizer`'s headers to every request and, on a 401 or 403,
 * lets the authorizer act (refresh, log in, step up) and sends the request again. It sits under the
 * transport, so every request (POST, the GET stream, DELETE) is authorized the same way and the
 * transport itself only sees the final answer.
 *
 * A request is sent at most `1 + MAX_CHALLENGES` times: the authorizer keeps its own, stricter count
 * of step-ups; this bound only stops a server that refuses every fresh token forever.
 */

import { describeUrl, HttpTransportError } from '../transports/http/errors.js';
import {
  HttpAbortError,
  type HttpExchange,
  type HttpReply,
  type HttpRequester,
  type HttpRequestOptions,
} from '../transports/http/http-requester.js';
import { drainBody } from '../transports/http/read-body.js';
import type { HttpAuthorizer } from './http-authorizer.js';

const MAX_CHALLENGES = 3;

export function authorizingRequester(inner: HttpRequester, authorizer: HttpAuthorizer): HttpRequester {
  return {
    request: (url, options) => new AuthorizedExchange(inner, authorizer, url, options),
    abortAll: () => inner.abortAll(),
    close: () => inner.close(),
  };
}

class AuthorizedExchange implements HttpExchange {
  readonly reply: Promise<HttpReply>;
  private current: HttpExchange | undefined;
  private aborted = false;

  constructor(
    private readonly inner: HttpRequester,
    private readonly authorizer: HttpAuthorizer,
    private readonly url: URL,
    private readonly options: HttpRequestOptions,
  ) {
    this.reply = this.run();
    this.reply.catch(() => {});
  }

  get open(): boolean {
    return !this.aborted && (this.current?.open ?? true);
  }

  abort(): void {
    this.aborted = true;
    this.current?.abort();
  }

  private async run(): Promise<HttpReply> {
    const target = { method: this.options.method, url: this.url };
    for (let attempt = 0; ; attempt++) {
      const auth = await this.authorizer.headers(target);
      if (this.aborted) throw new HttpAbortError();
      this.current = this.inner.request(this.url, {
        ...this.options,
        headers: { ...this.options.headers, ...auth.headers },
      });
      const reply = await this.current.reply;
      if ((reply.status !== 401 && reply.status !== 403) || attempt >= MAX_CHALLENGES) return reply;
      const wwwAuthenticate = reply.header('www-authenticate');
      const dpopNonce = reply.header('dpop-nonce');
      // Without a challenge a 403 is the server's answer, not an authorization problem.
      if (reply.status === 403 && wwwAuthenticate === undefined) return reply;
      let retry: boolean;
      try {
        retry = await this.authorizer.challenged({
          status: reply.status,
          wwwAuthenticate,
          generation: auth.generation,
          target,
          ...(dpopNonce === undefined ? {} : { dpopNonce }),
        });
      } catch (error) {
        reply.cancel();
        // The transport passes an HttpTransportError on as it is: its message says what to do.
        throw new HttpTransportError(
          'http-status',
          `MCP server at ${describeUrl(this.url)} answered HTTP ${reply.status}: ${(error as Error).message}`,
          { status: reply.status, cause: error },
        );
      }
      // A refusal that stands is handed on unread, for the transport to report as usual.
      if (!retry) return reply;
      await drainBody(reply);
    }
  }
}
