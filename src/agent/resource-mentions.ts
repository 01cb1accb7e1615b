/**
 * `@server:uri` mentions in a prompt: each names a resource of a connected MCP server, whose content is
 * read and attached to the same user message (text as a delimited block, images as image blocks; the
 * provider adapter decides which images it takes). Everything read passes the session's redactor before
 * it is attached.
 *
 * Attached resources stay current: where the server offers subscriptions, furfly subscribes
 * (`resources/subscribe`, or a `subscriptions/listen` naming the URI in the modern era); an
 * `notifications/resources/updated` marks the resource stale, and before the next turn it is read again
 * and the new content attached once more, marked as an update. Re-reading before the turn (not at the
 * moment of the notification) means a resource that changes often costs one read per turn, not one per
 * change, and the model never sees a version newer than the one the person was shown.
 */
import type { LoaderClient } from '../mcp/loader.js';
import { type FeatureClient, type ResourceContents, readResource } from '../mcp/server-features.js';
import type { Redactor } from '../redaction/index.js';
import { errorText } from '../util/error-text.js';
import type { UserBlock } from './messages.js';

export interface ResourceMention {
  server: string;
  uri: string;
}

/**
 * The mentions in `text`: `@<server>:<uri>` at the start or after whitespace, for a server in `servers`
 * (an `@` before anything else, like an e-mail address or `@types/node`, is left alone). The URI runs to
 * the next whitespace; a trailing `,` `.` `;` `)` is punctuation, not part of it. Each mention once.
 */
export function findMentions(text: string, servers: readonly string[]): ResourceMention[] {
  const known = new Set(servers);
  const found: ResourceMention[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([A-Za-z0-9_-]+):(\S+)/g)) {
    const server = match[1]!;
    const uri = match[2]!.replace(/[,.;:)!?]+$/, '');
    if (!known.has(server) || uri === '') continue;
    const key = `${server}\u0000${uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ server, uri });
  }
  return found;
}

/** The part of the MCP handle this needs. */
export interface ResourceSource {
  readonly clients: ReadonlyMap<string, LoaderClient>;
}

export interface PreparedAttachments {
  blocks: UserBlock[];
  /** One line per mention that could not be attached, and per resource refreshed (for the person). */
  notes: string[];
}

const IMAGE_TYPES = /^image\//i;

export class ResourceAttachments {
  /** Told when an attached resource changed (the session says so at once; it is re-read before the next turn). */
  onstale?: (mention: ResourceMention) => void;
  /** Attached resources, by `server\0uri`: whether an update arrived since the last read. */
  private readonly attached = new Map<string, { mention: ResourceMention; stale: boolean }>();

  constructor(
    private readonly source: ResourceSource,
    private readonly redactor: Redactor,
  ) {}

  /** Feed every server notification here; `notifications/resources/updated` of an attached URI marks it stale. */
  notify(server: string, method: string, params: unknown): void {
    if (method !== 'notifications/resources/updated') return;
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string') return;
    const entry = this.attached.get(`${server}\u0000${uri}`);
    if (!entry || entry.stale) return;
    entry.stale = true;
    try {
      this.onstale?.(entry.mention);
    } catch {
      // A failing listener must not lose the update.
    }
  }

  /** The resources attached so far (for /resources and tests). */
  list(): { server: string; uri: string; stale: boolean }[] {
    return [...this.attached.values()].map(({ mention, stale }) => ({ ...mention, stale }));
  }

  /**
   * Blocks for this turn: the updated resources attached earlier (re-read), then the mentions in `text`.
   * Never throws: a resource that cannot be read is a note, and the message goes without it.
   */
  async prepare(text: string, options: { signal?: AbortSignal } = {}): Promise<PreparedAttachments> {
    const blocks: UserBlock[] = [];
    const notes: string[] = [];
    for (const entry of this.attached.values()) {
      if (!entry.stale) continue;
      entry.stale = false;
      const read = await this.read(entry.mention, options.signal);
      if (read.ok) {
        blocks.push(...read.blocks.map((block) => markUpdated(block)));
        notes.push(`attached the updated ${label(entry.mention)}`);
      } else notes.push(read.message);
    }
    const mentions = findMentions(text, [...this.source.clients.keys()]);
    for (const mention of mentions) {
      const read = await this.read(mention, options.signal);
      if (!read.ok) {
        notes.push(read.message);
        continue;
      }
      blocks.push(...read.blocks);
      notes.push(`attached ${label(mention)}`);
      await this.keepCurrent(mention);
    }
    return { blocks, notes };
  }

  private async keepCurrent(mention: ResourceMention): Promise<void> {
    const key = `${mention.server}\u0000${mention.uri}`;
    if (this.attached.has(key)) return;
    const client = this.source.clients.get(mention.server);
    let subscribed = false;
    try {
      subscribed = (await client?.subscribeResource?.(mention.uri)) === true;
    } catch {
      // Not kept current then; the content attached now stands.
    }
    if (subscribed) this.attached.set(key, { mention, stale: false });
  }

  private async read(
    mention: ResourceMention,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; blocks: UserBlock[] } | { ok: false; message: string }> {
    const client = this.source.clients.get(mention.server);
    if (!client?.request) {
      return { ok: false, message: `could not attach ${label(mention)}: the server is not connected` };
    }
    let contents: ResourceContents[];
    try {
      contents = await readResource(
        client as LoaderClient & FeatureClient,
        mention.uri,
        signal ? { signal } : {},
      );
    } catch (error) {
      const why = client.describeRequestFailure?.(error, 'resources/read') ?? errorText(error);
      return { ok: false, message: this.redactor.text(`could not attach ${label(mention)}: ${why}`) };
    }
    if (contents.length === 0)
      return { ok: false, message: `could not attach ${label(mention)}: it is empty` };
    return { ok: true, blocks: contents.map((item) => this.toBlock(mention, item)) };
  }

  private toBlock(mention: ResourceMention, item: ResourceContents): UserBlock {
    const header = `[resource ${mention.server}:${item.uri}${item.mimeType ? ` (${item.mimeType})` : ''}, attached by the user]`;
    if (item.text !== undefined) {
      return { type: 'text', text: this.redactor.text(`${header}\n${item.text}\n[end of resource]`) };
    }
    if (item.blob !== undefined && IMAGE_TYPES.test(item.mimeType ?? '')) {
      return { type: 'image', data: item.blob, mimeType: item.mimeType! };
    }
    const bytes = Math.floor(((item.blob?.length ?? 0) * 3) / 4);
    return {
      type: 'text',
      text: this.redactor.text(
        `${header}\n(binary content, ${bytes} bytes, not attached: only text and images are)`,
      ),
    };
  }
}

function label(mention: ResourceMention): string {
  return `@${mention.server}:${mention.uri}`;
}

function markUpdated(block: UserBlock): UserBlock {
  return block.type === 'text' ? { ...block, text: `(updated since it was attached)\n${block.text}` } : block;
}
