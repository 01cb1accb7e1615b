/**
 * The request builder keeps a conversation the API accepts whatever ended up in the history: one bad
 * block would otherwise make every later request of the session fail with 400.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages.js';
import { buildParams, MAX_IMAGE_BYTES } from './anthropic.js';

function params(messages: ChatMessage[]) {
  return buildParams({ system: 's', context: '', tools: [], messages }, 'm');
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read as plain JSON.
type Json = any;

function resultContent(messages: ChatMessage[]): Json[] {
  const body = params(messages) as Json;
  return body.messages.at(-1).content[0].content;
}

const call = (input: unknown): ChatMessage[] => [
  { role: 'user', content: [{ type: 'text', text: 'go' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input }] },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 't1', is_error: false, content: [{ type: 'text', text: 'ok' }] },
    ],
  },
];

describe('buildParams keeps the history valid for the API', () => {
  it('drops whitespace-only text blocks, and never sends an empty message', () => {
    const body = params([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '\n\n' },
          { type: 'tool_use', id: 't1', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', is_error: false, content: [{ type: 'text', text: 'x' }] },
          { type: 'text', text: '   ' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: ' ' }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ]) as Json;
    const texts = body.messages.flatMap((m: Json) =>
      m.content.filter((b: Json) => b.type === 'text').map((b: Json) => b.text),
    );
    for (const text of texts) expect(text.trim()).not.toBe('');
    for (const message of body.messages) expect(message.content.length).toBeGreaterThan(0);
    expect(body.messages[1].content.map((b: Json) => b.type)).toEqual(['tool_use']);
  });

  it('sends a tool call whose arguments did not parse (or are not an object) with input {}', () => {
    for (const input of ['{"command": "ls -', [1, 2], 42, null, undefined]) {
      const body = params(call(input)) as Json;
      expect(body.messages[1].content[0].input).toEqual({});
    }
    const fine = params(call({ command: 'ls' })) as Json;
    expect(fine.messages[1].content[0].input).toEqual({ command: 'ls' });
  });

  it('replaces images of a type or size the API does not take with a one-line note, keeps the others', () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1, 1).toString('base64');
    const atLimit = Buffer.alloc(MAX_IMAGE_BYTES, 1).toString('base64');
    const content = resultContent([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            is_error: false,
            content: [
              { type: 'image', data: 'AAAA', mimeType: 'image/svg+xml' },
              { type: 'image', data: 'BBBB', mimeType: 'image/png' },
              { type: 'image', data: 'CCCC', mimeType: 'IMAGE/WebP; charset=binary' },
              { type: 'image', data: big, mimeType: 'image/png' },
              { type: 'image', data: atLimit, mimeType: 'image/gif' },
            ],
          },
        ],
      },
    ]);
    expect(content[0].type).toBe('text');
    expect(content[0].text).toMatch(/image\/svg\+xml/);
    expect(content[0].text).not.toContain('\n');
    expect(content[1]).toMatchObject({ type: 'image', source: { media_type: 'image/png', data: 'BBBB' } });
    expect(content[2]).toMatchObject({ type: 'image', source: { media_type: 'image/webp', data: 'CCCC' } });
    expect(content[3]).toEqual({
      type: 'text',
      text: `[an image (image/png, ${MAX_IMAGE_BYTES + 1} bytes) was left out: larger than the ${MAX_IMAGE_BYTES}-byte limit for images]`,
    });
    expect(content[4]).toMatchObject({ type: 'image', source: { media_type: 'image/gif' } });
  });

  it('never sends an empty text part in a tool result', () => {
    const content = resultContent([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            is_error: false,
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'data' },
              { type: 'text', text: ' \n' },
            ],
          },
        ],
      },
    ]);
    expect(content.length).toBeGreaterThan(0);
    for (const part of content) expect(part.type !== 'text' || part.text.trim() !== '').toBe(true);
    expect(content.some((p: Json) => p.text === 'data')).toBe(true);
    const onlyEmpty = resultContent([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', is_error: false, content: [{ type: 'text', text: '' }] },
        ],
      },
    ]);
    expect(onlyEmpty).toHaveLength(1);
    expect(onlyEmpty[0].text.trim()).not.toBe('');
  });
});

describe('toProviderError', () => {
  it('a prompt that is too long gets a hint to start a new conversation', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const { toProviderError } = await import('./anthropic.js');
    const body = {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    };
    const error = toProviderError(Anthropic.APIError.generate(400, body, undefined, new Headers()), 'k');
    expect(error.message).toMatch(/prompt is too long/);
    expect(error.message).toMatch(/\/clear/);
    const other = toProviderError(
      Anthropic.APIError.generate(
        400,
        { type: 'error', error: { type: 'invalid_request_error', message: 'bad field' } },
        undefined,
        new Headers(),
      ),
      'k',
    );
    expect(other.message).not.toMatch(/\/clear/);
  });

  it('names the endpoint (without its credentials) and says when the API gave no message of its own', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const { toProviderError } = await import('./anthropic.js');
    const empty = toProviderError(
      Anthropic.APIError.generate(404, {}, undefined, new Headers()),
      'k',
      'https://user:secret-pass@llm.example.test/v1/?key=abc',
    );
    expect(empty.message).toBe(
      'the model API at https://llm.example.test/v1 answered 404 Not Found with no error message (is it an Anthropic Messages API endpoint?)',
    );
    const own = toProviderError(
      Anthropic.APIError.generate(
        429,
        { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
        undefined,
        new Headers(),
      ),
      'k',
      'https://api.anthropic.com',
    );
    expect(own.message).toBe(
      'the model API at https://api.anthropic.com answered 429 Too Many Requests: rate_limit_error: slow down',
    );
  });
});
