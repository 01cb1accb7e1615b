/**
 * A server built on the reference SDK v1 (`@modelcontextprotocol/sdk`, protocol 2025-11-25, stdio) that
 * asks its client questions through the SDK's own calls, for interop: furfly's answers must satisfy
 * the SDK's schemas, not only furfly's reading of the spec.
 *
 *   node dist/test-servers/reference/sdk-v1-asking.js
 *
 * Tools (no arguments; each answers with the SDK's parsed result as JSON text):
 *   book       `elicitInput` form: guests (integer 1..8, default 2), date (string, format date),
 *              seating (titled enum, default inside), required: date
 *   connect    `elicitInput` URL mode (https://example.com/oauth?client=sdk-v1)
 *   haiku      `createMessage`: one user message, maxTokens 50
 *   roots      `listRoots`
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'furfly-reference-sdk-v1-asking', version: '1.0.0' });
const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });

server.registerTool('book', { description: 'Books a table after asking for the details' }, async () =>
  json(
    await server.server.elicitInput({
      message: 'Book a table',
      requestedSchema: {
        type: 'object',
        properties: {
          guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 8, default: 2 },
          date: { type: 'string', title: 'Date', format: 'date' },
          seating: {
            type: 'string',
            title: 'Seating',
            oneOf: [
              { const: 'inside', title: 'Inside' },
              { const: 'terrace', title: 'Terrace' },
            ],
            default: 'inside',
          },
        },
        required: ['date'],
      },
    }),
  ),
);

server.registerTool('connect', { description: 'Asks the user to open a link' }, async () =>
  json(
    await server.server.elicitInput({
      mode: 'url',
      message: 'Sign in to the service',
      url: 'https://example.com/oauth?client=sdk-v1',
      elicitationId: 'sdk-v1-1',
    }),
  ),
);

server.registerTool('haiku', { description: 'Asks the client model for a haiku' }, async () =>
  json(
    await server.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about tests, please.' } }],
      maxTokens: 50,
    }),
  ),
);

server.registerTool('roots', { description: 'Lists the client roots' }, async () =>
  json(await server.server.listRoots()),
);

await server.connect(new StdioServerTransport());
