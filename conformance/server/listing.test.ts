import { describe, expect, it } from 'vitest';
import { fetchAll, type Requester } from './listing.js';
import type { JsonObject } from './session.js';

/** A server that pages `itemsOf(page)` on each page; cursors are page numbers. */
function pagedServer(totalPages: number, itemsOf: (page: number) => JsonObject[]): Requester {
  return {
    async request(_method, params) {
      const page = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
      const result: JsonObject = { prompts: itemsOf(page) };
      if (page + 1 < totalPages) result.nextCursor = String(page + 1);
      return { message: { jsonrpc: '2.0', id: 1, result } };
    },
  };
}

describe('fetchAll', () => {
  it('stops at the page cap without calling the listing broken', async () => {
    const server = pagedServer(50, (page) => [{ name: `p${page}` }]);
    const listing = await fetchAll(server, 'prompts/list', 'prompts', 'name', 10);
    expect(listing.truncated).toBe(true);
    expect(listing.error).toBeNull();
    expect(listing.pages).toHaveLength(10);
  });

  it('follows a long listing to its end', async () => {
    const server = pagedServer(300, (page) => [{ name: `p${page}` }]);
    const listing = await fetchAll(server, 'prompts/list', 'prompts', 'name');
    expect(listing.truncated).toBe(false);
    expect(listing.items).toHaveLength(300);
  });

  it('does not count items without a string key as repeats', async () => {
    const server = pagedServer(3, () => [{ description: 'no name' }, { name: 7 }]);
    const listing = await fetchAll(server, 'prompts/list', 'prompts', 'name');
    expect(listing.repeated).toEqual([]);
    expect(listing.duplicates).toEqual([]);
    expect(listing.items).toHaveLength(6);
  });

  it('still reports real repeats', async () => {
    const server = pagedServer(2, () => [{ name: 'same' }]);
    const listing = await fetchAll(server, 'prompts/list', 'prompts', 'name');
    expect(listing.repeated).toEqual(['same']);
  });
});
