/**
 * Encoded content in prompts and resources (legacy era): image and audio data is base64 with a valid MIME
 * type, blobs are base64, resource URIs follow RFC 3986, and a malformed URI is refused on read. The
 * judgement is conformance/server/shapes; `contentFormatChecks` builds the checks for either era, so the
 * modern era (content-formats-modern.ts) asks the same questions through its own session.
 */
import type { KnownProtocolVersion, ProtocolEra } from '../../../src/protocol/versions.js';
import { errorText } from '../../../src/util/error-text.js';
import {
  ALL_VERSIONS,
  BOTH_TRANSPORTS,
  brief,
  type Check,
  fail,
  NotApplicable,
  pass,
  skip,
} from '../check.js';
import { listAll } from '../helpers/listing.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject, type Reply } from '../run/session.js';
import {
  describeIssues,
  hasEncodedParts,
  promptResultIssues,
  readResultIssues,
  type ShapeIssue,
  uriIssue,
} from '../shapes/content.js';

/** At most this many prompts are fetched and resources read: enough to see a server's habits. */
export const MAX_SAMPLED = 20;
/** No scheme and a space: no RFC 3986 URI, whatever the server's schemes are. */
export const MALFORMED_URI = 'furfly conformance/not a uri';

export interface ContentSource {
  /** Prompts and resources as listed, or null when the server does not declare that capability. */
  prompts(ctx: CheckContext): Promise<JsonObject[] | null>;
  resources(ctx: CheckContext): Promise<JsonObject[] | null>;
  request(ctx: CheckContext, method: 'prompts/get' | 'resources/read', params: JsonObject): Promise<Reply>;
}

interface Sampled {
  /** What was asked (prompt name or URI) and the result, for those answered with a result. */
  results: { what: string; result: JsonObject }[];
  /** Requests that failed (errors are legitimate for placeholder arguments; they are only counted). */
  refused: number;
}

/** Placeholder values for a prompt's required arguments: prompts are templates, not actions. */
export function placeholderArguments(prompt: JsonObject): Record<string, string> {
  const args: Record<string, string> = {};
  for (const argument of Array.isArray(prompt.arguments) ? prompt.arguments : [])
    if (isObject(argument) && typeof argument.name === 'string' && argument.required === true)
      args[argument.name] = 'furfly';
  return args;
}

async function sample(
  items: JsonObject[],
  what: (item: JsonObject) => string | null,
  ask: (item: JsonObject) => Promise<Reply>,
): Promise<Sampled> {
  const sampled: Sampled = { results: [], refused: 0 };
  for (const item of items.slice(0, MAX_SAMPLED)) {
    const name = what(item);
    if (name === null) continue;
    try {
      const result = (await ask(item)).message.result;
      if (isObject(result)) sampled.results.push({ what: name, result });
      else sampled.refused++;
    } catch {
      sampled.refused++;
    }
  }
  return sampled;
}

function issuesOf(
  sampled: Sampled,
  judge: (result: JsonObject) => ShapeIssue[],
  rules: readonly string[],
): string[] {
  return sampled.results.flatMap(({ what, result }) => {
    const issues = judge(result).filter((issue) => rules.includes(issue.rule));
    return issues.length > 0 ? [`${what}: ${describeIssues(issues)}`] : [];
  });
}

export interface ContentCheckOptions {
  era: ProtocolEra;
  versions: readonly KnownProtocolVersion[];
  /** Check ids, one per judgement. */
  ids: { media: string; blob: string; uri: string; malformedUri: string };
  /** The specification version named in each `source`. */
  specVersion: string;
  source: ContentSource;
}

export function contentFormatChecks(options: ContentCheckOptions): Check[] {
  const { source, specVersion } = options;
  const base = {
    versions: options.versions,
    transports: BOTH_TRANSPORTS,
    eras: [options.era],
    level: 'MUST',
  } as const;
  const prompts = (ctx: CheckContext) =>
    ctx.memo(`shapes:${options.era}:prompts`, async () => {
      const listed = await source.prompts(ctx);
      if (listed === null) return null;
      return sample(
        listed,
        (p) => (typeof p.name === 'string' ? p.name : null),
        (p) => source.request(ctx, 'prompts/get', { name: p.name, arguments: placeholderArguments(p) }),
      );
    });
  const reads = (ctx: CheckContext) =>
    ctx.memo(`shapes:${options.era}:reads`, async () => {
      const listed = await source.resources(ctx);
      if (listed === null) return null;
      const sampled = await sample(
        listed,
        (r) => (typeof r.uri === 'string' ? r.uri : null),
        (r) => source.request(ctx, 'resources/read', { uri: r.uri }),
      );
      return { listed, sampled };
    });

  return [
    {
      ...base,
      id: options.ids.media,
      section: 'prompts',
      title: 'image and audio data in prompts is base64 with a valid MIME type',
      requirement:
        'The image data MUST be base64-encoded and include a valid MIME type. The audio data MUST be base64-encoded and include a valid MIME type. Resources can contain either text or binary (blob) data and MUST include: A valid resource URI; The appropriate MIME type; Either text content or base64-encoded blob data.',
      source: `MCP ${specVersion} server/prompts (Image Content; Audio Content; Embedded Resources)`,
      async run(ctx) {
        const sampled = await prompts(ctx);
        if (sampled === null) throw new NotApplicable('the server does not declare the prompts capability');
        const judged = sampled.results.filter(({ result }) => hasEncodedParts(result));
        if (judged.length === 0)
          return skip(
            `nothing to judge: no image, audio or embedded resource in ${sampled.results.length} prompt(s) fetched`,
          );
        const problems = issuesOf(sampled, promptResultIssues, ['base64', 'mime', 'uri']);
        if (problems.length > 0)
          return fail(
            'prompt content is not properly encoded',
            'base64 data, valid MIME types and URIs',
            problems.join(' | '),
          );
        return pass(`${judged.length} prompt(s) with encoded content checked`);
      },
    },
    {
      ...base,
      id: options.ids.blob,
      section: 'resources',
      title: 'resource blobs are base64',
      requirement: 'Binary data MUST be properly encoded',
      source: `MCP ${specVersion} server/resources (Security Considerations; Binary Content)`,
      async run(ctx) {
        const read = await reads(ctx);
        if (read === null) throw new NotApplicable('the server does not declare the resources capability');
        const judged = read.sampled.results.filter(({ result }) => hasEncodedParts(result));
        if (judged.length === 0)
          return skip(`nothing to judge: no blob in ${read.sampled.results.length} resource(s) read`);
        const problems = issuesOf(read.sampled, readResultIssues, ['base64']);
        if (problems.length > 0)
          return fail('a resource blob is not base64', 'base64 (RFC 4648) blobs', problems.join(' | '));
        return pass(`${judged.length} resource(s) with blobs checked`);
      },
    },
    {
      ...base,
      id: options.ids.uri,
      section: 'resources',
      title: 'resource URIs are RFC 3986 URIs',
      requirement:
        'Custom URI schemes MUST be in accordance with RFC3986, taking the above guidance in to account.',
      source: `MCP ${specVersion} server/resources (Common URI Schemes; Custom URI Schemes)`,
      async run(ctx) {
        const read = await reads(ctx);
        if (read === null) throw new NotApplicable('the server does not declare the resources capability');
        const problems = [
          ...read.listed.flatMap((item, index) =>
            uriIssue(item.uri, `/resources/${index}/uri`).map((i) => `listed: ${i.detail}`),
          ),
          ...issuesOf(read.sampled, readResultIssues, ['uri']),
        ];
        if (problems.length > 0)
          return fail(
            'a resource URI is not an RFC 3986 URI',
            'scheme ":" and only allowed or %-encoded characters',
            problems.join(' | '),
          );
        if (read.listed.length === 0) return skip('nothing to judge: no resource listed');
        return pass(`${read.listed.length} listed URI(s), ${read.sampled.results.length} read result(s)`);
      },
    },
    {
      ...base,
      id: options.ids.malformedUri,
      section: 'resources',
      title: 'reading a malformed URI gets an error, not contents',
      requirement: 'Servers MUST validate all resource URIs',
      source: `MCP ${specVersion} server/resources (Security Considerations)`,
      async run(ctx) {
        if ((await source.resources(ctx)) === null)
          throw new NotApplicable('the server does not declare the resources capability');
        let reply: Reply;
        try {
          reply = await source.request(ctx, 'resources/read', { uri: MALFORMED_URI });
        } catch (error) {
          return fail(
            `resources/read of ${JSON.stringify(MALFORMED_URI)} was not answered`,
            'an error response',
            errorText(error),
          );
        }
        if (isObject(reply.message.error)) return pass(`refused with ${String(reply.message.error.code)}`);
        return fail(
          `resources/read of ${JSON.stringify(MALFORMED_URI)} (no scheme, a space) was served`,
          'a JSON-RPC error: the URI fails validation',
          brief(reply.message),
        );
      },
    },
  ];
}

/** Legacy era: the shared initialized session and its memoised listings. */
const LEGACY_SOURCE: ContentSource = {
  async prompts(ctx) {
    ctx.session();
    if (!isObject(ctx.capabilities.prompts)) return null;
    return (await listAll(ctx, 'prompts/list', 'prompts', 'name')).items;
  },
  async resources(ctx) {
    ctx.session();
    if (!isObject(ctx.capabilities.resources)) return null;
    return (await listAll(ctx, 'resources/list', 'resources', 'uri')).items;
  },
  request: (ctx, method, params) => ctx.session().requestUntyped(method, params),
};

export const contentFormatsChecks: readonly Check[] = contentFormatChecks({
  era: 'legacy',
  versions: ALL_VERSIONS,
  ids: {
    media: 'prompts.media-encoding',
    blob: 'resources.blob-encoding',
    uri: 'resources.uri-syntax',
    malformedUri: 'resources.malformed-uri-refused',
  },
  specVersion: '2025-11-25',
  source: LEGACY_SOURCE,
});
