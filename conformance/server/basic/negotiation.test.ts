/** Version negotiation with servers that speak versions furfly does not vet. */
import { describe, expect, it } from 'vitest';
import { SuiteError } from '../run/runner.js';
import { runAgainst } from '../suite.test-helpers.js';

describe('a server that speaks only a version furfly does not vet', () => {
  it('stops the run (exit 2) naming the version, instead of vetting it as another', async () => {
    const run = runAgainst('spec-breaker', ['--break', 'only-2024-11-05'], { timeoutMs: 10_000 });
    await expect(run).rejects.toBeInstanceOf(SuiteError);
    await expect(run).rejects.toThrow(
      'the server speaks 2024-11-05; furfly vets 2025-03-26, 2025-06-18, 2025-11-25',
    );
  });
});
