/**
 * Encoded content in prompts and resources (MCP 2026-07-28 server/prompts, server/resources): the same
 * judgement as the legacy era (content-formats.ts, ../shapes), asked through the modern session.
 */
import { MODERN_VERSIONS } from '../check.js';
import { modernListings } from '../helpers/modern-scenarios.js';
import { isObject } from '../run/session.js';
import { contentFormatChecks } from './content-formats.js';

export const modernContentFormatsChecks = contentFormatChecks({
  era: 'modern',
  versions: MODERN_VERSIONS,
  ids: {
    media: 'prompts.modern-media-encoding',
    blob: 'resources.modern-blob-encoding',
    uri: 'resources.modern-uri-syntax',
    malformedUri: 'resources.modern-malformed-uri-refused',
  },
  specVersion: '2026-07-28',
  source: {
    async prompts(ctx) {
      if (!isObject(ctx.modernCapabilities.prompts)) return null;
      return (await modernListings(ctx)).find((l) => l.method === 'prompts/list')?.items ?? [];
    },
    async resources(ctx) {
      if (!isObject(ctx.modernCapabilities.resources)) return null;
      return (await modernListings(ctx)).find((l) => l.method === 'resources/list')?.items ?? [];
    },
    request: (ctx, method, params) => ctx.modern().request(method, params),
  },
});
