/**
 * pictures: the well-behaved server plus one tool that answers with an image of any MIME type and size
 * it is asked for, including types and sizes no model takes. Tests use it to show where a client decides
 * what happens to such an image (furfly: in the provider adapter, nowhere before it).
 *
 *   node dist/test-servers/pictures.js
 *
 * Tool `picture {mime_type, bytes}`: one image block with that `mimeType` and `bytes` bytes of data
 * (the byte 0x5a repeated, base64; not a decodable picture).
 */
import { runServer, standardDefinition } from './lib/cli.js';
import type { ToolDefinition } from './lib/tools.js';

/** Upper bound of `bytes`, so a typo cannot exhaust memory. */
const MAX_PICTURE_BYTES = 16 * 1024 * 1024;

const pictureTool: ToolDefinition = {
  name: 'picture',
  title: 'Picture',
  description: 'Returns one image block of the given MIME type with `bytes` bytes of data.',
  inputSchema: {
    type: 'object',
    properties: {
      mime_type: { type: 'string' },
      bytes: { type: 'integer', minimum: 0, maximum: MAX_PICTURE_BYTES },
    },
    required: ['mime_type', 'bytes'],
    additionalProperties: false,
  },
  run: (args) => ({
    content: [
      {
        type: 'image',
        mimeType: args.mime_type as string,
        data: Buffer.alloc(args.bytes as number, 0x5a).toString('base64'),
      },
    ],
  }),
};

runServer({
  name: 'pictures',
  usage: 'Tools: the standard ones, plus picture {mime_type, bytes} (an image of any type and size).',
  setup: (_flags, common) => {
    const definition = standardDefinition('pictures', common);
    return { definition: { ...definition, tools: [...definition.tools, pictureTool] } };
  },
});
