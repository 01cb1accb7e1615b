/**
 * A tool result with every known secret masked (see src/redaction). Text parts are redacted as text.
 * An image cannot be masked in part (its bytes would no longer decode), so one whose data holds a
 * secret is replaced by a sentence saying so.
 */
import { MASK, type Redactor } from '../redaction/index.js';
import type { ContentPart, ToolResult } from './tool.js';

export const IMAGE_WITHHELD = '[image withheld: its data contained a secret value]';

export function redactToolResult(result: ToolResult, redactor: Redactor): ToolResult {
  const content = maskAcrossTextParts(result.content, redactor).map((part): ContentPart => {
    if (part.type === 'text') return { ...part, text: redactor.text(part.text) };
    if (part.type === 'image' && redactor.finds(part.data)) return { type: 'text', text: IMAGE_WITHHELD };
    return part;
  });
  return { ...result, content };
}

/**
 * Consecutive text parts reach the model (and the screen) as one text, so a server could split a secret
 * between two parts to slip each half past a part-by-part check. Each run of consecutive text parts is
 * searched as one text, and every piece of an occurrence is masked in the part that holds it.
 */
function maskAcrossTextParts(parts: readonly ContentPart[], redactor: Redactor): ContentPart[] {
  const out = [...parts];
  for (let first = 0; first < out.length; ) {
    let last = first;
    while (out[last]?.type === 'text') last++;
    if (last - first > 1) {
      const texts = out.slice(first, last).map((p) => (p as { text: string }).text);
      const runs = redactor.coveredRuns(texts.join(''));
      let offset = 0;
      texts.forEach((text, i) => {
        const start = offset;
        const end = offset + text.length;
        offset = end;
        let masked = '';
        let kept = 0;
        for (const [s, e] of runs) {
          if (e <= start || s >= end) continue;
          const from = Math.max(s, start) - start;
          masked += `${text.slice(kept, from)}${MASK}`;
          kept = Math.min(e, end) - start;
        }
        out[first + i] = { type: 'text', text: masked + text.slice(kept) };
      });
    }
    first = Math.max(last, first + 1);
  }
  return out;
}
