/**
 * Follows a paginated list (tools, resources, resource templates, prompts) to its end, once per run,
 * recording what pagination did wrong instead of looping forever.
 */
import type { CheckContext } from './context.js';
import { describe } from './context.js';
import { isObject, type JsonObject } from './session.js';

export interface Listing {
  /** Every item across pages, in order. */
  items: JsonObject[];
  /** Each page's raw result (or the raw error response). */
  pages: JsonObject[];
  /** Why listing stopped early: an error response, a timeout, a malformed page. */
  error: string | null;
  /** A cursor the server handed out twice: following it again would loop. */
  repeatedCursor: string | null;
  /** Items whose key (name or uri) appeared on an earlier page: pagination went back. */
  repeated: string[];
  /** Items whose key appeared twice on one page: not unique. */
  duplicates: string[];
}

const MAX_PAGES = 100;

export function listAll(
  ctx: CheckContext,
  method: string,
  field: string,
  key: 'name' | 'uri' | 'uriTemplate',
) {
  return ctx.memo(`list:${method}`, () => fetchAll(ctx, method, field, key));
}

async function fetchAll(ctx: CheckContext, method: string, field: string, key: string): Promise<Listing> {
  const session = ctx.session();
  const listing: Listing = {
    items: [],
    pages: [],
    error: null,
    repeatedCursor: null,
    repeated: [],
    duplicates: [],
  };
  const seenCursors = new Set<string>();
  const pageOfKey = new Map<string, number>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let message: JsonObject;
    try {
      message = (await session.request(method, cursor === undefined ? {} : { cursor })).message;
    } catch (error) {
      listing.error = describe(error);
      return listing;
    }
    if (!isObject(message.result)) {
      listing.pages.push(message);
      listing.error = `${method} answered with an error: ${JSON.stringify(message.error).slice(0, 200)}`;
      return listing;
    }
    const result = message.result;
    listing.pages.push(result);
    const items = result[field];
    if (!Array.isArray(items)) {
      listing.error = `${method} result has no "${field}" array`;
      return listing;
    }
    for (const item of items) {
      if (!isObject(item)) continue;
      const id = typeof item[key] === 'string' ? (item[key] as string) : JSON.stringify(item[key]);
      const earlier = pageOfKey.get(id);
      if (earlier === page) listing.duplicates.push(id);
      else if (earlier !== undefined) listing.repeated.push(id);
      else pageOfKey.set(id, page);
      listing.items.push(item);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return listing;
    if (typeof next !== 'string') {
      listing.error = `nextCursor is not a string: ${JSON.stringify(next)}`;
      return listing;
    }
    if (seenCursors.has(next)) {
      listing.repeatedCursor = next;
      return listing;
    }
    seenCursors.add(next);
    cursor = next;
  }
  listing.error = `still paginating after ${MAX_PAGES} pages`;
  return listing;
}
