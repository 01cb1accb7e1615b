/**
 * A provider whose implementation is loaded on its first request. The Anthropic SDK is the largest
 * module the agent loads; importing it before the prompt would delay the prompt by hundreds of
 * milliseconds for a request the user has not typed yet.
 */
import type { ModelProvider, ModelRequest, ModelResponse } from './types.js';

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
    // A failed load is not cached: the next request tries again.
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    const provider = await this.loading;
    return provider.complete(request, options);
  }
}
