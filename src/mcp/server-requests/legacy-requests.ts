/**
 * One path for both eras (issue 18, item 8): a 2025 server's own requests (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) are answered by the very handlers that answer a 2026-07-28
 * server's `input_required` entries (era/input-handlers.ts). This registers them on the peer.
 */
import { RpcRemoteError } from '../../jsonrpc/errors.js';
import type { RequestHandler } from '../../jsonrpc/peer.js';
import { errorText } from '../../util/error-text.js';
import { isObject } from '../../util/is-object.js';
import { type InputContext, type InputHandlers, InputRequiredError } from '../era/input-handlers.js';

/** A refusal with the JSON-RPC code a 2025 server is to receive (sampling: -1, "User rejected"). */
export class ServerRequestRefused extends InputRequiredError {
  constructor(
    message: string,
    readonly rpcCode: number,
  ) {
    super(message);
    this.name = 'ServerRequestRefused';
  }
}

/** The JSON-RPC error code for a user's rejection (client/sampling, Error Handling). */
export const USER_REJECTED = -1;

const METHOD_OF: Record<keyof InputHandlers, string> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};

export interface PeerWithHandlers {
  setRequestHandler(method: string, handler: RequestHandler | undefined): void;
}

/**
 * Registers a handler per kind present in `handlers`. `contextOf` names the call the request most
 * likely belongs to (a legacy request carries no link to it). A refusal keeps its code; any other
 * failure is an internal error whose message names what went wrong.
 */
export function registerLegacyServerRequests(
  peer: PeerWithHandlers,
  handlers: InputHandlers,
  contextOf: () => InputContext,
): void {
  for (const kind of Object.keys(METHOD_OF) as (keyof InputHandlers)[]) {
    const handler = handlers[kind];
    if (handler === undefined) continue;
    peer.setRequestHandler(METHOD_OF[kind], async (params) => {
      try {
        return await handler(isObject(params) ? params : {}, contextOf());
      } catch (error) {
        if (error instanceof ServerRequestRefused)
          throw new RpcRemoteError(undefined, error.rpcCode, error.message);
        throw new RpcRemoteError(undefined, -32603, errorText(error));
      }
    });
  }
}
