/**
 * A secret a tool splits between consecutive text parts (red team of issue #13): the model reads the
 * parts as one text, so each piece is masked.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../redaction/index.js';
import { IMAGE_WITHHELD, redactToolResult } from './result-redaction.js';
import type { ToolResult } from './tool.js';

const SECRET = 'sk-ant-SECRETVALUE-123456789';
const redactor = new Redactor([SECRET]);

const texts = (result: ToolResult) => result.content.map((p) => (p.type === 'text' ? p.text : p.type));

describe('redactToolResult', () => {
  it('masks a secret split between two text parts, each piece in its part', () => {
    const result = redactToolResult(
      {
        isError: false,
        content: [
          { type: 'text', text: `key: ${SECRET.slice(0, 10)}` },
          { type: 'text', text: `${SECRET.slice(10)} end` },
        ],
      },
      redactor,
    );
    expect(texts(result)).toEqual(['key: ***', '*** end']);
    expect(texts(result).join('')).not.toContain(SECRET.slice(4, 12));
  });

  it('masks a secret spread over three parts, the middle one wholly inside it', () => {
    const result = redactToolResult(
      {
        isError: false,
        content: [
          { type: 'text', text: `a${SECRET.slice(0, 5)}` },
          { type: 'text', text: SECRET.slice(5, 15) },
          { type: 'text', text: `${SECRET.slice(15)}b` },
        ],
      },
      redactor,
    );
    expect(texts(result)).toEqual(['a***', '***', '***b']);
  });

  it('leaves ordinary parts alone and still masks whole secrets and images', () => {
    const result = redactToolResult(
      {
        isError: false,
        content: [
          { type: 'text', text: 'plain one' },
          { type: 'text', text: `and ${SECRET} here` },
          { type: 'image', data: Buffer.from(SECRET).toString('utf8'), mimeType: 'image/png' },
          { type: 'text', text: 'after' },
        ],
      },
      redactor,
    );
    expect(texts(result)).toEqual(['plain one', 'and *** here', IMAGE_WITHHELD, 'after']);
  });
});
