/**
 * A provider whose implementation is loaded on its first request. The Anthropic SDK is the largest
 * module the agent loads; importing it before the prompt would delay the prompt by hundreds of
 * milliseconds for a request the user has not typed yet.
 */

import { errorText } from '../../util/error-text.js';
import {
  AbortError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from './types.js';

export class DeferredProvider implements ModelProvider {
  private loading: Promise<ModelProvider> | undefined;

  constructor(
    readonly name: string,
    readonly model: string,
    private readonly load: () => Promise<ModelProvider>,
  ) {}

  async complete(
    request: ModelRequest,
    options: { signal: AbortSignal; onText: (text: string) => void },
  ): Promise<ModelResponse> {
    // A failed load is not cached: the next request tries again. It fails as the provider would, with
    // a ProviderError worded for the user.
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw new ProviderError(`could not load the ${this.name} provider: ${errorText(error)}`);
    });
    const provider = await untilAborted(this.loading, options.signal);
    return provider.complete(request, options);
  }
}

/** Ctrl-C during the load ends the request at once (the load itself goes on, for the next request). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new AbortError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
