import { describe, expect, it } from 'vitest';
import { DeferredProvider } from './deferred.js';
import { AbortError, type ModelProvider, type ModelRequest, ProviderError } from './types.js';

const REQUEST: ModelRequest = { system: 's', context: 'c', tools: [], messages: [] };
const options = { signal: new AbortController().signal, onText: () => {} };

function fakeProvider(text: string): ModelProvider {
  return {
    name: 'fake',
    model: 'm',
    complete: async () => ({
      content: [{ type: 'text', text }],
      stopReason: 'end_turn',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    }),
  } as ModelProvider;
}

describe('DeferredProvider', () => {
  it('loads the implementation on the first request only, and not before', async () => {
    let loads = 0;
    const provider = new DeferredProvider('anthropic', 'claude', async () => {
      loads++;
      return fakeProvider('hi');
    });
    expect(provider.name).toBe('anthropic');
    expect(provider.model).toBe('claude');
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([
      provider.complete(REQUEST, options),
      provider.complete(REQUEST, options),
    ]);
    expect(first.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(second.content).toEqual(first.content);
    expect(loads).toBe(1);
  });

  it('tries the load again after a failed one', async () => {
    let attempt = 0;
    const provider = new DeferredProvider('anthropic', 'claude', async () => {
      attempt++;
      if (attempt === 1) throw new Error('cannot load');
      return fakeProvider('second time');
    });
    const failure = await provider.complete(REQUEST, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as Error).message).toBe('could not load the anthropic provider: cannot load');
    const response = await provider.complete(REQUEST, options);
    expect(response.content).toEqual([{ type: 'text', text: 'second time' }]);
  });

  it('gives up at once when the request is cancelled during the load, and loads for the next one', async () => {
    let finishLoad!: (provider: ModelProvider) => void;
    const provider = new DeferredProvider(
      'anthropic',
      'claude',
      () => new Promise((resolve) => (finishLoad = resolve)),
    );
    const controller = new AbortController();
    const pending = provider.complete(REQUEST, { signal: controller.signal, onText: () => {} });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    finishLoad(fakeProvider('loaded'));
    const next = await provider.complete(REQUEST, options);
    expect(next.content).toEqual([{ type: 'text', text: 'loaded' }]);
  });
});
