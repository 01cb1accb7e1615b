/**
 * Client fixture suite, stdio: the handshake as the server saw it (its `--record` file) and version
 * negotiation for every supported version, against real test server processes.
 */
import { describe, expect } from 'vitest';
import { McpConnectError } from '../../src/mcp/errors.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../../src/protocol/versions.js';
import { isAlive } from '../../test-servers/testing.js';
import { recordedMessages, resultText, test } from './harness.test-helpers.js';

describe.concurrent('handshake order (as recorded by the server)', () => {
  test('the server/discover probe comes first, then initialize on the same process, notifications/initialized before any other request', async ({
    harness,
  }) => {
    const record = harness.recordFile();
    // Paging makes the handshake send several requests, so "before any other" is not trivially true.
    const { client } = await harness.connectStdio('well-behaved', ['--record', record, '--page-size', '2']);
    expect((await client.callTool('echo', { message: 'after the handshake' })).isError).toBe(false);
    await client.close();

    const all = recordedMessages(record);
    // The dual-era probe (2026-07-28, stdio "Backward Compatibility"): a legacy server refuses it, and
    // the legacy handshake follows exactly as before.
    expect(all[0]?.method).toBe('server/discover');
    const messages = all.slice(1);
    const methods = messages.map((m) => m.method);
    expect(methods[0]).toBe('initialize');
    expect(methods.filter((m) => m === 'initialize')).toHaveLength(1);
    const initialized = methods.indexOf('notifications/initialized');
    expect(initialized).toBe(1);
    const requests = messages.filter((m) => m.id !== undefined && m.method !== undefined);
    for (const request of requests.slice(1)) expect(messages.indexOf(request)).toBeGreaterThan(initialized);
    expect(methods.slice(2)).toEqual(['tools/list', 'tools/list', 'tools/list', 'tools/list', 'tools/call']);
    expect(messages.slice(3, 6).every((m) => typeof m.params?.cursor === 'string')).toBe(true);
  });
});

/** Tools whose listing depends on the version: `structured` (outputSchema) exists from 2025-06-18. */
const HAS_STRUCTURED: Record<ProtocolVersion, boolean> = {
  '2025-03-26': false,
  '2025-06-18': true,
  '2025-11-25': true,
};

describe.concurrent('version negotiation with the well-behaved server', () => {
  test.for([...PROTOCOL_VERSIONS])('proposes %s and the server agrees', async (version, { harness }) => {
    const record = harness.recordFile();
    const { client } = await harness.connectStdio('well-behaved', ['--record', record], {
      protocolVersion: version,
    });
    expect(recordedMessages(record)[0]?.params?.protocolVersion).toBe(version);
    expect(client.protocolVersion).toBe(version);

    const names = client.tools.map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names.includes('structured')).toBe(HAS_STRUCTURED[version]);
    expect('title' in (client.serverInfo ?? {})).toBe(HAS_STRUCTURED[version]);

    // Invalid tool arguments: a tool result from 2025-11-25 on, a -32602 protocol error before.
    const invalid = await client.callTool('add', { a: 'one', b: 2 });
    expect(invalid.isError).toBe(true);
    if (version === '2025-11-25') expect(resultText(invalid)).not.toContain('JSON-RPC error');
    else expect(resultText(invalid)).toContain('the server answered with JSON-RPC error -32602');
  });
});

/** A server that answers every initialize with a version no one supports, then waits for stdin to end. */
const ANSWERS_1999 = `
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method !== 'initialize') return;
  const result = { protocolVersion: '1999-01-01', capabilities: {}, serverInfo: { name: 'old', version: '1' } };
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
});
`;

describe.concurrent('version negotiation with a server that answers an unsupported version', () => {
  test.for(['2025-11-25', '2025-03-26'] as const)(
    'proposing %s: connect fails naming both versions, and the process is stopped',
    async (version, { harness }) => {
      const { client, transport } = harness.inlineClient(ANSWERS_1999, { protocolVersion: version });
      const error = await client.connect({ timeoutMs: 10_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpConnectError);
      expect(error).toMatchObject({ phase: 'initialize', serverName: 'inline' });
      expect((error as Error).message).toContain('"1999-01-01"');
      expect((error as Error).message).toContain(`proposed "${version}"`);
      expect(client.protocolVersion).toBeUndefined();
      expect(client.isConnected).toBe(false);
      // connect() closes the connection before it rejects, and close() waits for the exit.
      expect(transport.pid).toBeDefined();
      expect(isAlive(transport.pid!)).toBe(false);
    },
  );
});
