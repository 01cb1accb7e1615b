import { describe, expect, it } from 'vitest';
import { CouldNotTell, NotApplicable } from '../check.js';
import { type JsonObject, RequestTimeout } from '../run/session.js';
import { fetchAll, paginationOutcome, type Requester } from './listing.js';

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

/** Page 0 lists one prompt and a cursor; page 1 does what `second` says. */
function breakingOnPage2(second: 'timeout' | 'error'): Requester {
  return {
    async request(_method, params) {
      if (params.cursor === undefined)
        return { message: { jsonrpc: '2.0', id: 1, result: { prompts: [{ name: 'a' }], nextCursor: 'c1' } } };
      if (second === 'timeout') throw new RequestTimeout('no response to prompts/list within 10 ms');
      return { message: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad cursor' } } };
    },
  };
}

describe('paginationOutcome', () => {
  it('fails a listing the server broke after a cursor', async () => {
    const listing = await fetchAll(breakingOnPage2('error'), 'prompts/list', 'prompts', 'name');
    expect(paginationOutcome(listing, 'prompt names', true).status).toBe('fail');
  });

  it('cannot tell when a later page got no reply in time', async () => {
    const listing = await fetchAll(breakingOnPage2('timeout'), 'prompts/list', 'prompts', 'name');
    expect(listing.timedOut).toBe(true);
    expect(() => paginationOutcome(listing, 'prompt names', true)).toThrow(CouldNotTell);
  });

  it('has nothing to judge when the first page failed (the list-valid checks report it)', async () => {
    const failing: Requester = {
      async request() {
        return { message: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'down' } } };
      },
    };
    const listing = await fetchAll(failing, 'prompts/list', 'prompts', 'name');
    expect(() => paginationOutcome(listing, 'prompt names', true)).toThrow(NotApplicable);
  });
});
