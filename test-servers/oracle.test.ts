/**
 * Every message the well-behaved test server sends, in every protocol version, is also judged by the
 * reference SDK's published schemas (src/protocol/oracle.test-helpers.ts), besides our own validators: a
 * conversation that touches each method it serves, its errors, progress and a list_changed notification.
 * Any message either judge rejects fails the test with its method and path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { oracleVerdict, resultDefinitionOf } from '../src/protocol/oracle.test-helpers.js';
import { validatorsFor } from '../src/protocol/validate.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../src/protocol/versions.js';
import { type Json, type StdioServer, startStdioServer, stopAllServers } from './testing.js';

afterEach(stopAllServers);

/** The requests of the conversation, by id; the id says which method a response answers. */
function conversation(version: ProtocolVersion): [string, string, Json][] {
  const calls: [string, string, Json][] = [
    ['list-tools', 'tools/list', undefined],
    ['echo', 'tools/call', { name: 'echo', arguments: { message: 'hello' } }],
    ['add', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }],
    ['fail', 'tools/call', { name: 'fail', arguments: {} }],
    ['bad-args', 'tools/call', { name: 'add', arguments: { a: 'one' } }],
    ['unknown-tool', 'tools/call', { name: 'nope', arguments: {} }],
    [
      'progress',
      'tools/call',
      { name: 'progress', arguments: { steps: 2, interval_ms: 1 }, _meta: { progressToken: 'p1' } },
    ],
    ['large', 'tools/call', { name: 'large', arguments: { bytes: 1000 } }],
    ['ping', 'ping', undefined],
    ['resources', 'resources/list', undefined],
    ['templates', 'resources/templates/list', undefined],
    ['read', 'resources/read', { uri: 'furfly://test/readme' }],
    ['read-missing', 'resources/read', { uri: 'furfly://test/missing' }],
    ['prompts', 'prompts/list', undefined],
    ['prompt', 'prompts/get', { name: 'greeting', arguments: { name: 'Ada' } }],
    ['set-level', 'logging/setLevel', { level: 'info' }],
    ['subscribe', 'resources/subscribe', { uri: 'furfly://test/readme' }],
    ['unsubscribe', 'resources/unsubscribe', { uri: 'furfly://test/readme' }],
    [
      'complete',
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'a' } },
    ],
    ['unknown-method', 'furfly/unknown', undefined],
  ];
  // After set-level: the server's log message for a call is judged too.
  calls.push(['logged-call', 'tools/call', { name: 'echo', arguments: { message: 'logged' } }]);
  if (version !== '2025-03-26') {
    calls.push(['structured', 'tools/call', { name: 'structured', arguments: { text: 'x' } }]);
  }
  return calls;
}

/** Every problem either judge finds in one message the server sent. */
function judge(version: ProtocolVersion, message: Json, methodOf: Map<string, string>): string[] {
  const problems: string[] = [];
  const ours = validatorsFor(version).message(message);
  if (ours.length > 0) problems.push(`ours: ${ours[0]!.pointer} ${ours[0]!.message}`);
  const envelope = oracleVerdict('message', message);
  if (envelope) problems.push(`SDK envelope: ${envelope}`);
  if ('result' in message) {
    const method = methodOf.get(String(message.id));
    const definition = method === undefined ? undefined : resultDefinitionOf(method);
    if (!definition) problems.push(`a result for an unknown request id ${JSON.stringify(message.id)}`);
    else {
      const verdict = oracleVerdict(definition, message.result);
      if (verdict) problems.push(`SDK ${definition}: ${verdict}`);
      const mine = validatorsFor(version).result(method!, message.result);
      if (mine.length > 0) problems.push(`ours ${definition}: ${mine[0]!.pointer} ${mine[0]!.message}`);
    }
  }
  if ('method' in message && !('id' in message)) {
    const verdict = oracleVerdict('ServerNotification', message);
    if (verdict) problems.push(`SDK ServerNotification: ${verdict}`);
  }
  return problems;
}

async function drain(server: StdioServer, into: Json[], untilIds: Set<string>): Promise<void> {
  while (untilIds.size > 0) {
    const message = await server.nextMessage();
    into.push(message);
    if (message && typeof message === 'object' && 'id' in message && !('method' in message))
      untilIds.delete(String(message.id));
  }
}

describe('the well-behaved server, judged by the reference SDK', () => {
  it.each(PROTOCOL_VERSIONS)('sends only valid messages in %s', async (version) => {
    const server = startStdioServer('well-behaved', ['--list-changed-after', '1']);
    const sent: Json[] = [];
    const methodOf = new Map<string, string>([['init', 'initialize']]);
    server.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initialize(version) });
    await drain(server, sent, new Set(['init']));
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const waiting = new Set<string>();
    for (const [id, method, params] of conversation(version)) {
      methodOf.set(id, method);
      waiting.add(id);
      server.send(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      );
    }
    await drain(server, sent, waiting);
    // The list_changed notification comes 1 ms after initialized; wait for it if it has not come yet.
    while (!sent.some((m) => m?.method === 'notifications/tools/list_changed')) {
      sent.push(await server.nextMessage());
    }
    // So does the log message that confirms logging/setLevel (it follows that response).
    while (!sent.some((m) => m?.method === 'notifications/message')) {
      sent.push(await server.nextMessage());
    }

    const kinds = new Set(sent.map((m) => m.method ?? ('error' in m ? 'error' : 'result')));
    // The conversation must have produced each kind of message, or the test judges too little.
    expect([...kinds].sort()).toEqual(
      [
        'error',
        'notifications/message',
        'notifications/progress',
        'notifications/tools/list_changed',
        'result',
      ].sort(),
    );
    const problems = sent.flatMap((message) =>
      judge(version, message, methodOf).map(
        (problem) => `${JSON.stringify(message).slice(0, 120)}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });
});

function initialize(version: ProtocolVersion): Json {
  return { protocolVersion: version, capabilities: {}, clientInfo: { name: 'oracle', version: '0' } };
}
