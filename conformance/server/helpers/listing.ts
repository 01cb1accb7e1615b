/**
 * Follows a paginated list (tools, resources, resource templates, prompts) to its end, once per run,
 * recording what pagination did wrong instead of looping forever.
 */

import { errorText } from '../../../src/util/error-text.js';
import { brief, type CheckOutcome, CouldNotTell, fail, NotApplicable, pass } from '../check.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject, RequestTimeout } from '../run/session.js';

export interface Listing {
  /** Every item across pages, in order. */
  items: JsonObject[];
  /** Each page's raw result (or the raw error response). */
  pages: JsonObject[];
  /** Why listing stopped early: an error response, a timeout, a malformed page. */
  error: string | null;
  /** The page (0-based) that `error` happened on. */
  failedPage: number | null;
  /** The failing request got no reply within the step timeout: a slow server is not a broken one. */
  timedOut: boolean;
  /** A cursor the server handed out twice: following it again would loop. */
  repeatedCursor: string | null;
  /** Items whose key (name or uri) appeared on an earlier page: pagination went back. */
  repeated: string[];
  /** Items whose key appeared twice on one page: not unique. */
  duplicates: string[];
  /**
   * furfly stopped following cursors after MAX_PAGES pages. Not the server's fault (a large server may
   * be correct); checks over the whole listing skip instead of judging a part of it.
   */
  truncated: boolean;
}

/** High enough for any real server; a bound only so a server that paginates forever cannot hang the run. */
export const MAX_PAGES = 1000;

export function listAll(
  ctx: CheckContext,
  method: string,
  field: string,
  key: 'name' | 'uri' | 'uriTemplate',
) {
  const listing = ctx.memo(`list:${method}`, () => fetchAll(ctx.session(), method, field, key));
  if (ctx.era !== 'modern') return listing;
  // A list may not ask for input (2026-07-28 basic/patterns/mrtr, Supported Requests); that is
  // mrtr.only-supported-requests' finding, and not a second one for every check that lists.
  return listing.then((found) => {
    if (found.pages.some((page) => isObject(page) && page.resultType === 'input_required'))
      throw new NotApplicable(
        `${method} was answered with an InputRequiredResult, which mrtr.only-supported-requests judges`,
      );
    return found;
  });
}

/** What fetchAll needs of a session (a narrow seam, so its bookkeeping can be tested on its own). */
export interface Requester {
  request(method: string, params: JsonObject): Promise<{ message: JsonObject }>;
}

export async function fetchAll(
  session: Requester,
  method: string,
  field: string,
  key: string,
  maxPages = MAX_PAGES,
): Promise<Listing> {
  const listing: Listing = {
    items: [],
    pages: [],
    error: null,
    failedPage: null,
    timedOut: false,
    repeatedCursor: null,
    repeated: [],
    duplicates: [],
    truncated: false,
  };
  const seenCursors = new Set<string>();
  const pageOfKey = new Map<string, number>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    let message: JsonObject;
    try {
      message = (await session.request(method, cursor === undefined ? {} : { cursor })).message;
    } catch (error) {
      listing.error = errorText(error);
      listing.failedPage = page;
      listing.timedOut = error instanceof RequestTimeout;
      return listing;
    }
    if (!isObject(message.result)) {
      listing.pages.push(message);
      listing.error = `${method} answered with an error: ${JSON.stringify(message.error).slice(0, 200)}`;
      listing.failedPage = page;
      return listing;
    }
    const result = message.result;
    listing.pages.push(result);
    const items = result[field];
    if (!Array.isArray(items)) {
      listing.error = `${method} result has no "${field}" array`;
      listing.failedPage = page;
      return listing;
    }
    for (const item of items) {
      if (!isObject(item)) continue;
      listing.items.push(item);
      // An item without a string key is judged by the list-valid checks; it cannot repeat.
      const id = item[key];
      if (typeof id !== 'string') continue;
      const earlier = pageOfKey.get(id);
      if (earlier === page) listing.duplicates.push(id);
      else if (earlier !== undefined) listing.repeated.push(id);
      else pageOfKey.set(id, page);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return listing;
    if (typeof next !== 'string') {
      listing.error = `nextCursor is not a string: ${JSON.stringify(next)}`;
      listing.failedPage = page;
      return listing;
    }
    if (seenCursors.has(next)) {
      listing.repeatedCursor = next;
      return listing;
    }
    seenCursors.add(next);
    cursor = next;
  }
  listing.truncated = true;
  return listing;
}

export function truncatedNote(listing: Listing): string {
  return `the pages read are valid; furfly stopped following cursors after ${listing.pages.length} pages`;
}

/**
 * The shared verdict of the *.pagination checks: a loop or a repeat fails, a listing the server broke
 * past its first page fails (an error or a malformed page after a cursor), a listing furfly stopped
 * following is not judged. A first page that failed leaves no pagination to judge (the *.list-valid
 * checks report it); a later page that got no reply in time is something the check could not tell.
 */
export function paginationOutcome(listing: Listing, noun: string, includeDuplicates: boolean): CheckOutcome {
  if (listing.repeatedCursor !== null)
    return fail(
      'the server handed out the same cursor twice',
      'each nextCursor new',
      brief(listing.repeatedCursor),
    );
  const repeated = includeDuplicates ? [...listing.repeated, ...listing.duplicates] : listing.repeated;
  if (repeated.length > 0)
    return fail(
      `${noun} repeat across pages`,
      `each ${noun.replace(/s$/, '')} once`,
      repeated.slice(0, 5).join(', '),
    );
  if (listing.error && listing.failedPage === 0 && listing.items.length === 0)
    throw new NotApplicable(`the first page failed (${listing.error}): no pagination to judge`);
  if (listing.error && listing.timedOut)
    throw new CouldNotTell(
      `page ${(listing.failedPage ?? 0) + 1} got no reply in time (${listing.error}), so whether pagination completes is unknown`,
    );
  if (listing.error)
    return fail('pagination did not complete', 'pages until nextCursor is absent', listing.error);
  if (listing.truncated) throw new NotApplicable(truncatedNote(listing));
  return pass(`${listing.pages.length} page(s)`);
}

/**
 * The shared verdict of the *.invalid-cursor checks: a cursor the server never issued must get -32602.
 * No response leaves the SHOULD nothing to judge; a method the server does not implement (-32601) has
 * no cursor to judge either.
 */
export async function invalidCursorOutcome(ctx: CheckContext, method: string): Promise<CheckOutcome> {
  let message: JsonObject;
  try {
    message = (await ctx.session().requestUntyped(method, { cursor: 'furfly:not-a-cursor' })).message;
  } catch (error) {
    throw new CouldNotTell(
      `whether an invalid cursor gets -32602: ${method} got no response (${errorText(error)})`,
    );
  }
  const code = isObject(message.error) ? message.error.code : undefined;
  if (code === -32601) throw new NotApplicable(`${method} is not implemented (-32601)`);
  if (code !== -32602)
    return fail(
      `the invalid cursor was not rejected with -32602 by ${method}`,
      'error code -32602',
      brief(message),
    );
  return pass();
}

/**
 * The shared verdict of the *.capability-declared checks for a feature whose list shows whether the
 * server offers it: a non-empty list from a server that did not declare the capability fails.
 */
export async function capabilityOutcome(
  ctx: CheckContext,
  capability: string,
  method: string,
  field: string,
): Promise<CheckOutcome> {
  const session = ctx.session();
  if (isObject(ctx.capabilities[capability])) return pass();
  const reply = await session.requestUntyped(method, {});
  const items = isObject(reply.message.result) ? reply.message.result[field] : undefined;
  if (Array.isArray(items) && items.length > 0)
    return fail(
      `${method} offers ${items.length} item(s) but the ${capability} capability was not declared`,
      `capabilities.${capability}`,
      'absent',
    );
  return pass(`no ${capability} capability and no ${field} offered`);
}
