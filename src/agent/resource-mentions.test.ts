import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { LoaderClient } from '../mcp/loader.js';
import { Redactor } from '../redaction/index.js';
import { findMentions, ResourceAttachments } from './resource-mentions.js';

describe('findMentions', () => {
  it('finds @server:uri at the start or after whitespace, for known servers only', () => {
    expect(findMentions('see @docs:file:///a/b.md, and @other:x and me@docs:no', ['docs'])).toEqual([
      { server: 'docs', uri: 'file:///a/b.md' },
    ]);
    expect(findMentions('@docs:u1 @docs:u1 (@docs:u2)', ['docs'])).toEqual([{ server: 'docs', uri: 'u1' }]);
  });

  test.prop([fc.webUrl()])(
    'a URL after a known server comes back whole (trailing punctuation aside)',
    (url) => {
      const [mention] = findMentions(`look at @srv:${url}.`, ['srv']);
      expect(mention?.uri).toBe(url.replace(/[,.;:)!?]+$/, ''));
    },
  );
});

/** A connected client that serves one text resource and one image, and offers subscriptions. */
function fakeClient(texts: Record<string, string>) {
  const subscribed: string[] = [];
  const client = {
    name: 'docs',
    capabilities: { resources: { subscribe: true } },
    async request(method: string, params: Record<string, unknown> = {}) {
      if (method !== 'resources/read') throw new Error(`unexpected ${method}`);
      const uri = String(params.uri);
      if (uri === 'img://1') return { contents: [{ uri, mimeType: 'image/png', blob: 'AAAA' }] };
      if (!(uri in texts)) throw new Error('Resource not found');
      return { contents: [{ uri, mimeType: 'text/plain', text: texts[uri] }] };
    },
    async subscribeResource(uri: string) {
      subscribed.push(uri);
      return true;
    },
  } as unknown as LoaderClient;
  return { client, subscribed };
}

describe('ResourceAttachments', () => {
  it('attaches text (redacted) and images, notes what failed, and re-reads an updated resource before the next turn', async () => {
    const texts = { 'mem://a': 'token sk-secret-123 inside' };
    const { client, subscribed } = fakeClient(texts);
    const attachments = new ResourceAttachments(
      { clients: new Map([['docs', client]]) },
      new Redactor(['sk-secret-123']),
    );
    const first = await attachments.prepare('read @docs:mem://a and @docs:img://1 and @docs:mem://missing');
    expect(first.blocks).toHaveLength(2);
    expect(first.blocks[0]).toMatchObject({ type: 'text' });
    expect(JSON.stringify(first.blocks[0])).not.toContain('sk-secret-123');
    expect(first.blocks[1]).toEqual({ type: 'image', data: 'AAAA', mimeType: 'image/png' });
    expect(first.notes).toEqual([
      'attached @docs:mem://a',
      'attached @docs:img://1',
      expect.stringMatching(/^could not attach @docs:mem:\/\/missing: .*Resource not found/),
    ]);
    expect(subscribed).toEqual(['mem://a', 'img://1']);

    // No update: nothing is attached again.
    expect((await attachments.prepare('next')).blocks).toEqual([]);
    // An update of an attached resource: read again before the next turn, marked as updated.
    texts['mem://a'] = 'new text';
    attachments.notify('docs', 'notifications/resources/updated', { uri: 'mem://a' });
    attachments.notify('docs', 'notifications/resources/updated', { uri: 'mem://not-attached' });
    const next = await attachments.prepare('and now?');
    expect(next.notes).toEqual(['attached the updated @docs:mem://a']);
    expect(next.blocks).toHaveLength(1);
    expect((next.blocks[0] as { text: string }).text).toMatch(
      /^\(updated since it was attached\)\n.*\nnew text\n/s,
    );
  });
});
