/**
 * Every message the well-behaved server sends in the modern era (2026-07-28) is judged twice: by our own
 * 2026-07-28 validators (generated from schemas/) and by the reference SDK v2's published schemas
 * (`@modelcontextprotocol/core` 2.4.0). The conversation over stdio touches each method it serves, its
 * errors, MRTR, progress, logging and a subscription (#15).
 */
import * as core from '@modelcontextprotocol/core';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorsFor } from '../src/protocol/validate.js';
import { type Json, modernParams, startStdioServer, stopAllServers } from './testing.js';

afterEach(stopAllServers);

interface ZodLike {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}
const schemas = core as unknown as Record<string, ZodLike>;

const RESULT_SCHEMA: Record<string, string> = {
  'server/discover': 'DiscoverResultSchema',
  'tools/list': 'ListToolsResultSchema',
  'tools/call': 'CallToolResultSchema',
  'resources/list': 'ListResourcesResultSchema',
  'resources/templates/list': 'ListResourceTemplatesResultSchema',
  'resources/read': 'ReadResourceResultSchema',
  'prompts/list': 'ListPromptsResultSchema',
  'prompts/get': 'GetPromptResultSchema',
};
const NOTIFICATION_SCHEMA: Record<string, string> = {
  'notifications/progress': 'ProgressNotificationSchema',
  'notifications/message': 'LoggingMessageNotificationSchema',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotificationSchema',
  'notifications/tools/list_changed': 'ToolListChangedNotificationSchema',
};

function verdict(schemaName: string, value: unknown): string {
  const schema = schemas[schemaName];
  if (!schema) return `the SDK publishes no ${schemaName}`;
  const parsed = schema.safeParse(value);
  if (parsed.success) return '';
  const issue = parsed.error?.issues[0];
  return `${schemaName} /${issue?.path.map(String).join('/')}: ${issue?.message}`;
}

const ours = validatorsFor('2026-07-28');

function judge(message: Json, methodOf: Map<string, string>): string[] {
  const problems: string[] = [];
  const envelope = verdict('JSONRPCMessageSchema', message);
  if (envelope) problems.push(envelope);
  const own = ours.message(message);
  if (own.length > 0) problems.push(`ours: ${own[0]!.pointer} ${own[0]!.message}`);
  if ('result' in message) {
    const method = methodOf.get(String(message.id)) ?? '?';
    const ownResult = ours.result(method, message.result);
    if (ownResult.length > 0)
      problems.push(`ours ${method}: ${ownResult[0]!.pointer} ${ownResult[0]!.message}`);
    if (message.result.resultType === 'input_required') {
      for (const request of Object.values(message.result.inputRequests ?? {}) as Json[]) {
        const problem = verdict('ElicitRequestParamsSchema', request.params);
        if (problem) problems.push(problem);
      }
    } else {
      const schemaName = RESULT_SCHEMA[method];
      if (!schemaName) problems.push(`a result for ${method}`);
      else {
        const problem = verdict(schemaName, message.result);
        if (problem) problems.push(problem);
      }
    }
  } else if ('method' in message) {
    const ownParams = ours.params(message.method, message.params);
    if (ownParams.length > 0)
      problems.push(`ours ${message.method}: ${ownParams[0]!.pointer} ${ownParams[0]!.message}`);
    const schemaName = NOTIFICATION_SCHEMA[message.method];
    if (!schemaName || 'id' in message) problems.push(`unexpected ${message.method}`);
    else {
      const problem = verdict(schemaName, message);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

describe('well-behaved --era modern, judged by the reference SDK v2 schemas', () => {
  it('sends only messages both judges accept', async () => {
    const server = startStdioServer('well-behaved', ['--era', 'modern', '--list-changed-after', '10']);
    const elicitation = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const calls: [string, string, Json][] = [
      ['discover', 'server/discover', modernParams()],
      ['tools', 'tools/list', modernParams()],
      [
        'echo',
        'tools/call',
        modernParams(
          { name: 'echo', arguments: { message: 'x' } },
          { 'io.modelcontextprotocol/logLevel': 'info' },
        ),
      ],
      ['bad-args', 'tools/call', modernParams({ name: 'add', arguments: { a: 'one' } })],
      ['structured', 'tools/call', modernParams({ name: 'structured', arguments: { text: 'x' } })],
      [
        'progress',
        'tools/call',
        modernParams({ name: 'progress', arguments: { steps: 2, interval_ms: 1 } }, { progressToken: 1 }),
      ],
      ['ask', 'tools/call', modernParams({ name: 'ask_name', arguments: {} }, elicitation)],
      ['resources', 'resources/list', modernParams()],
      ['templates', 'resources/templates/list', modernParams()],
      ['read', 'resources/read', modernParams({ uri: 'furfly://test/config.json' })],
      ['read-missing', 'resources/read', modernParams({ uri: 'furfly://test/none' })],
      ['prompts', 'prompts/list', modernParams()],
      ['prompt', 'prompts/get', modernParams({ name: 'greeting', arguments: { name: 'Ada' } })],
      [
        'unsupported',
        'tools/list',
        modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
      ],
      ['unknown', 'furfly/unknown', modernParams()],
    ];
    const methodOf = new Map(calls.map(([id, method]) => [id, method]));
    const messages: Json[] = [];
    for (const [id, method, params] of calls) {
      messages.push(await server.request(id, method, params), ...server.received.splice(0));
    }
    server.send({
      jsonrpc: '2.0',
      id: 'listen',
      method: 'subscriptions/listen',
      params: modernParams({ notifications: { toolsListChanged: true } }),
    });
    messages.push(await server.nextMessage(), await server.nextMessage());

    const problems = messages.flatMap((message) =>
      judge(message, methodOf).map((problem) => `${JSON.stringify(message).slice(0, 80)}: ${problem}`),
    );
    expect(problems).toEqual([]);
    // The conversation reached every kind it meant to judge.
    const kinds = new Set(
      messages.map((message) => message.method ?? ('error' in message ? 'error' : 'result')),
    );
    expect([...kinds].sort()).toEqual([
      'error',
      'notifications/message',
      'notifications/progress',
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'result',
    ]);
  });
});
