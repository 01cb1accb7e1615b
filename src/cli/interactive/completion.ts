/**
 * Tab completion in the interactive prompt (readline's `completer`, so on a terminal only):
 *
 * - `/` + letters: the slash commands, and every connected server's prompts as `/mcp__<server>__<prompt>`.
 * - `@` + letters: the connected servers, as `@<server>:`.
 * - `@<server>:` + text: that server's resources (`resources/list`) and resource templates
 *   (`resources/templates/list`): a template's fixed start is offered as it is, and once it is typed, the
 *   value of its first `{variable}` is completed by the server (`completion/complete`, when it offers
 *   completions).
 *
 * Lists are fetched on the first Tab and kept for a short while, so holding Tab does not flood a server.
 * A server that fails or is slow just offers nothing; completion never prints and never throws. The
 * candidates are the servers' own strings: readline shows them as typed text, so they are made safe first.
 */
import type { LoaderClient, ServerEvent } from '../../mcp/loader.js';
import {
  completeArgument,
  type FeatureClient,
  listPrompts,
  listResources,
  listResourceTemplates,
  type ResourceInfo,
  type ResourceTemplateInfo,
} from '../../mcp/server-features.js';
import { terminalLine } from '../../terminal/sanitize.js';

export interface CompletionSource {
  readonly mcp: {
    statuses(): ServerEvent[];
    readonly clients: ReadonlyMap<string, LoaderClient>;
  };
  /** The built-in slash commands, without the `/`. */
  readonly slashCommands: readonly string[];
}

export type Completer = (line: string, callback: (error: null, result: [string[], string]) => void) => void;

/** How long fetched lists are reused. */
const CACHE_MS = 30_000;
/** Time one completion may wait for a server. */
const COMPLETION_TIMEOUT_MS = 2000;
const MAX_CANDIDATES = 200;

interface Cached {
  at: number;
  resources: ResourceInfo[];
  templates: ResourceTemplateInfo[];
  prompts: string[];
}

export function createCompleter(source: CompletionSource, now: () => number = Date.now): Completer {
  const cache = new Map<string, Cached>();

  const connected = (): [string, LoaderClient & FeatureClient][] =>
    source.mcp
      .statuses()
      .filter((s) => s.status === 'ok')
      .flatMap((s) => {
        const client = source.mcp.clients.get(s.server);
        return client?.request && client.capabilities
          ? [[s.server, client as LoaderClient & FeatureClient]]
          : [];
      });

  const listsOf = async (server: string, client: LoaderClient & FeatureClient): Promise<Cached> => {
    const hit = cache.get(server);
    if (hit && now() - hit.at < CACHE_MS) return hit;
    const options = { timeoutMs: COMPLETION_TIMEOUT_MS };
    const settle = async <T>(promise: Promise<T>, fallback: T) => promise.catch(() => fallback);
    const entry: Cached = {
      at: now(),
      resources: await settle(listResources(client, options), []),
      templates: await settle(listResourceTemplates(client, options), []),
      prompts: (await settle(listPrompts(client, options), [])).map((p) => p.name),
    };
    cache.set(server, entry);
    return entry;
  };

  const candidates = async (line: string): Promise<[string[], string]> => {
    const token = /(\S*)$/.exec(line)?.[1] ?? '';
    if (line.startsWith('/') && !/\s/.test(line)) {
      const names = source.slashCommands.map((name) => `/${name}`);
      for (const [server, client] of connected()) {
        // Prompt names are the server's strings too: one that is not safe to show and type back is not offered.
        for (const prompt of (await listsOf(server, client)).prompts)
          if (typeable(prompt)) names.push(`/mcp__${server}__${prompt}`);
      }
      return [names.filter((name) => name.startsWith(token)), token];
    }
    if (!token.startsWith('@')) return [[], token];
    const colon = token.indexOf(':');
    if (colon === -1) {
      return [
        connected()
          .map(([server]) => `@${server}:`)
          .filter((name) => name.startsWith(token)),
        token,
      ];
    }
    const server = token.slice(1, colon);
    const typed = token.slice(colon + 1);
    const client = connected().find(([name]) => name === server)?.[1];
    if (!client) return [[], token];
    const lists = await listsOf(server, client);
    const uris = lists.resources.map((r) => r.uri).filter((uri) => uri.startsWith(typed));
    for (const template of lists.templates) {
      const variable = /\{([^}]+)\}/.exec(template.uriTemplate);
      const fixed = variable ? template.uriTemplate.slice(0, variable.index) : template.uriTemplate;
      if (fixed.startsWith(typed) && fixed !== typed) {
        uris.push(fixed);
      } else if (variable && typed.startsWith(fixed)) {
        const name = variable[1]!.replace(/^[+#./;?&]/, '');
        const values = await completeArgument(
          client,
          { type: 'ref/resource', uri: template.uriTemplate },
          { name, value: typed.slice(fixed.length) },
          { timeoutMs: COMPLETION_TIMEOUT_MS },
        ).catch(() => [] as string[]);
        for (const value of values) uris.push(`${fixed}${value}`);
      }
    }
    const unique = [...new Set(uris)]
      // A candidate with spaces or control characters could not be typed back as one mention.
      .filter(typeable)
      .slice(0, MAX_CANDIDATES);
    return [unique.map((uri) => `@${server}:${uri}`), token];
  };

  return (line, callback) => {
    candidates(line).then(
      (result) => callback(null, result),
      () => callback(null, [[], line]),
    );
  };
}

/** A candidate with spaces or control characters could not be shown safely or typed back as one word. */
function typeable(text: string): boolean {
  return terminalLine(text) === text && !/\s/.test(text);
}
