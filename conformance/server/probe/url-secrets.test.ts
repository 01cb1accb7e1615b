/** The HTTP probe never passes a URL's credentials or query on, whatever fetch says. */
import { describe, expect, it } from 'vitest';
import { HttpFailure, httpRequest } from './http.js';

describe('conformance URL secrets', () => {
  it('the probe itself never passes fetch error text on', async () => {
    const error = await httpRequest(
      { url: 'http://user:s3cr3t@127.0.0.1:9/mcp?token=SECRETVALUE', headers: {} },
      { method: 'POST', body: '{}', timeoutMs: 2000 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpFailure);
    const message = (error as Error).message;
    expect(message).toContain('http://127.0.0.1:9/mcp');
    expect(message).not.toMatch(/s3cr3t|SECRETVALUE/);
  });
});
