/**
 * MCP tool results -> the content parts the agent hands to the model.
 *
 * The model can read text and look at images; everything else is described in a short line, so the
 * model knows something came back without us pasting megabytes of base64 into the conversation.
 * Images pass as images, whatever their type and size: which ones a model takes is the provider
 * adapter's business (agent/provider/), decided once at its own boundary, not here.
 * Pure: capping and saving oversized output is a separate step (output-spill.ts).
 */
import type { ContentPart, ToolResult } from '../tools/tool.js';
import { base64Size } from '../util/base64-size.js';
import type { McpContent, ToolCallResult } from './client.js';

export function convertToolCallResult(result: ToolCallResult): ToolResult {
  const content: ContentPart[] = result.content.map(convertContentBlock);
  const hasText = result.content.some((block) => block.type === 'text');
  if (!hasText && result.structuredContent !== undefined) {
    // Servers should mirror structuredContent as text; when one does not, the JSON is the answer.
    content.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  }
  if (content.length === 0) {
    content.push({
      type: 'text',
      text: result.isError
        ? '(the tool reported an error without a message)'
        : '(the tool returned no content)',
    });
  }
  return { isError: result.isError, content };
}

export function convertContentBlock(block: McpContent): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: typeof block.text === 'string' ? block.text : String(block.text) };
    case 'image':
      if (typeof block.data === 'string' && typeof block.mimeType === 'string') {
        return { type: 'image', data: block.data, mimeType: block.mimeType };
      }
      return text('[image without data or MIME type]');
    case 'audio':
      return text(`[audio: ${mimeOf(block)}, ${sizeOf(block.data)}]`);
    case 'resource_link':
      return text(`[resource link: ${linkText(block)}]`);
    case 'resource':
      return convertEmbeddedResource(block.resource);
    default:
      return text(`[unsupported content of type ${JSON.stringify(String(block.type))}]`);
  }
}

function convertEmbeddedResource(resource: unknown): ContentPart {
  if (resource === null || typeof resource !== 'object') return text('[embedded resource without contents]');
  const r = resource as Record<string, unknown>;
  if (typeof r.text === 'string') return text(r.text);
  const uri = typeof r.uri === 'string' ? r.uri : '(no URI)';
  if (typeof r.blob === 'string') return text(`[binary resource ${uri}: ${mimeOf(r)}, ${sizeOf(r.blob)}]`);
  return text(`[embedded resource ${uri} without contents]`);
}

function linkText(block: McpContent): string {
  const uri = typeof block.uri === 'string' ? block.uri : '(no URI)';
  const name = typeof block.name === 'string' && block.name !== uri ? ` (${block.name})` : '';
  const mime = typeof block.mimeType === 'string' ? `, ${block.mimeType}` : '';
  return `${uri}${name}${mime}`;
}

function mimeOf(value: Record<string, unknown>): string {
  return typeof value.mimeType === 'string' ? value.mimeType : 'unknown type';
}

function sizeOf(data: unknown): string {
  if (typeof data !== 'string') return 'no data';
  const bytes = base64Size(data);
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

function text(value: string): ContentPart {
  return { type: 'text', text: value };
}
