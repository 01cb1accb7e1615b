/**
 * A tool result with every known secret masked (see src/redaction). Text parts are redacted as text.
 * An image cannot be masked in part (its bytes would no longer decode), so one whose data holds a
 * secret is replaced by a sentence saying so.
 */
import type { Redactor } from '../redaction/index.js';
import type { ContentPart, ToolResult } from './tool.js';

export const IMAGE_WITHHELD = '[image withheld: its data contained a secret value]';

export function redactToolResult(result: ToolResult, redactor: Redactor): ToolResult {
  const content = result.content.map((part): ContentPart => {
    if (part.type === 'text') return { ...part, text: redactor.text(part.text) };
    if (part.type === 'image' && redactor.finds(part.data)) return { type: 'text', text: IMAGE_WITHHELD };
    return part;
  });
  return { ...result, content };
}
