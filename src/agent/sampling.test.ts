import { describe, expect, it } from 'vitest';
import { Redactor } from '../redaction/index.js';
import type { ModelProvider } from './provider/types.js';
import { samplingHandler, toModelMessages } from './sampling.js';

describe('a server sampling request as model messages', () => {
  it('keeps text, tool use and tool results; other content becomes a line saying it was left out', () => {
    const converted = toModelMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'w', input: { c: 1 } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'ok' }] }],
      },
    ]);
    expect(converted).toEqual({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'text', text: '[image content left out: furfly passes text and tool use only]' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'w', input: { c: 1 } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              is_error: false,
              content: [{ type: 'text', text: 'ok' }],
            },
          ],
        },
      ],
      shown: [
        { role: 'user', text: 'hi\n[image content left out: furfly passes text and tool use only]' },
        { role: 'assistant', text: '[tool use w]' },
        { role: 'user', text: '[tool result: ok]' },
      ],
    });
  });

  it('refuses what the spec forbids: a tool result for no tool use, tool results mixed with text', () => {
    expect(
      toModelMessages([{ role: 'user', content: { type: 'tool_result', toolUseId: 'nope', content: [] } }]),
    ).toBe('a tool result for nope, which no tool use asked for');
    expect(
      toModelMessages([
        { role: 'assistant', content: { type: 'tool_use', id: 'a', name: 'w', input: {} } },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'a', content: [] },
            { type: 'text', text: 'x' },
          ],
        },
      ]),
    ).toBe('tool results mixed with other content in one message');
    expect(toModelMessages([])).toBe('messages must be a non-empty list');
  });

  it('an invalid request is refused with -32602 before anybody is asked or the model is called', async () => {
    let asked = 0;
    let called = 0;
    const provider = {
      name: 'p',
      model: 'm',
      complete: async () => {
        called++;
        throw new Error('not expected');
      },
    } as unknown as ModelProvider;
    const handler = samplingHandler({
      server: 's',
      policy: 'ask',
      provider,
      redactor: new Redactor([]),
      prompter: {
        approve: async () => {
          asked++;
          return 'once';
        },
        showReply: () => {},
      },
      approvedForSession: new Set(),
    });
    await expect(
      handler(
        { messages: [], maxTokens: 5 },
        { server: 's', method: 'tools/call', name: 't', signal: undefined },
      ),
    ).rejects.toMatchObject({ rpcCode: -32602 });
    expect([asked, called]).toEqual([0, 0]);
  });
});
