/** `furfly conformance --url` never prints the URL's credentials or query, whatever fetch says. */
import { describe, expect, it } from 'vitest';
import type { ConformanceOptions } from './conformance.js';
import { runConformance } from './conformance.test-helpers.js';

async function run(options: ConformanceOptions) {
  const { code, stdout, stderr } = await runConformance(options, []);
  return { code, out: stdout + stderr };
}

describe('conformance URL secrets', () => {
  it('an unreachable URL: exit 2, the message names the URL without its query', async () => {
    const result = await run({ url: 'http://127.0.0.1:9/mcp?token=SECRETVALUE', timeout: 2000 });
    expect(result.code).toBe(2);
    expect(result.out).toContain('http://127.0.0.1:9/mcp');
    expect(result.out).not.toContain('SECRETVALUE');
    expect(result.out.trim().split('\n')).toHaveLength(1);
  });

  it('a URL with credentials is a usage error that names no value', async () => {
    const result = await run({ url: 'http://user:s3cr3t@127.0.0.1:9/mcp?token=abc' });
    expect(result.code).toBe(2);
    expect(result.out).toContain('must not contain a user or password');
    for (const secret of ['user:', 's3cr3t', 'token=', 'abc']) expect(result.out).not.toContain(secret);
  });
});
