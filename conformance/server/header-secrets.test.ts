/**
 * `furfly conformance --url … --header 'Authorization: Bearer <token>'` against token-echo, a real HTTP
 * server on 127.0.0.1 that repeats the bare token in its name, tool descriptions, results, errors and
 * HTTP error bodies: none of the three reports (JSON, JUnit, text) holds the token.
 * Needs the compiled test server (`npm run build`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance } from '../../src/cli/commands/conformance.test-helpers.js';
import { startHttpServer, stopAllServers } from '../../test-servers/testing.js';

const TOKEN = 'tok-conformance-3b7e9d2a6c1f';
let folder: string | undefined;

afterEach(async () => {
  await stopAllServers();
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('conformance reports never hold the token of a --header', { timeout: 120_000 }, () => {
  it('JSON, JUnit and text reports mask the token the server echoes', async () => {
    const server = await startHttpServer('token-echo');
    folder = mkdtempSync(path.join(os.tmpdir(), 'furfly-conformance-secrets-'));
    const junit = path.join(folder, 'report.xml');
    const options = {
      url: `${server.url}?key=query-secret-value-9`,
      header: `Authorization: Bearer ${TOKEN}`,
      callTools: true,
      timeout: 5000,
    };

    const json = await runConformance({ ...options, json: true, junit }, []);
    expect(json.code, json.stderr).not.toBe(2);
    const report = JSON.parse(json.stdout);
    // The server put the token into its name: the report keeps the name, masked.
    expect(report.server.name).toBe('token-echo ***');
    const text = await runConformance(options, []);
    expect(text.code, text.stderr).not.toBe(2);
    expect(text.stdout).toContain('token-echo ***');

    const outputs = [json.stdout, json.stderr, readFileSync(junit, 'utf8'), text.stdout, text.stderr];
    for (const output of outputs) {
      expect(output).not.toContain(TOKEN);
      expect(output).not.toContain('query-secret-value-9');
    }
  });
});
