import { describe, expect, it } from 'vitest';
import { base64Size } from '../util/base64-size.js';
import { convertToolCallResult } from './result-conversion.js';

const PNG = 'iVBORw0KGgo=';

describe('convertToolCallResult', () => {
  it('keeps text as text and images as images', () => {
    const result = convertToolCallResult({
      isError: false,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    });
    expect(result).toEqual({
      isError: false,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    });
  });

  it('passes every image through unchanged, whatever its type or size: the provider adapter decides', () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 1).toString('base64');
    const images = [
      { type: 'image' as const, data: PNG, mimeType: 'image/svg+xml' },
      { type: 'image' as const, data: PNG, mimeType: 'IMAGE/JPEG' },
      { type: 'image' as const, data: big, mimeType: 'image/png' },
    ];
    expect(convertToolCallResult({ isError: false, content: images }).content).toEqual(images);
  });

  it('describes audio and binary resources by type, MIME type and size instead of pasting them', () => {
    const data = Buffer.alloc(1000, 7).toString('base64');
    const result = convertToolCallResult({
      isError: false,
      content: [
        { type: 'audio', data, mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/zip', blob: data } },
      ],
    });
    expect(result.content).toEqual([
      { type: 'text', text: '[audio: audio/wav, 1000 bytes]' },
      { type: 'text', text: '[binary resource file:///a.bin: application/zip, 1000 bytes]' },
    ]);
  });

  it('gives a resource link as a line with its URI and name, and embedded text as text', () => {
    const result = convertToolCallResult({
      isError: false,
      content: [
        { type: 'resource_link', uri: 'file:///src/main.rs', name: 'main.rs', mimeType: 'text/x-rust' },
        { type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes' } },
      ],
    });
    expect(result.content).toEqual([
      { type: 'text', text: '[resource link: file:///src/main.rs (main.rs), text/x-rust]' },
      { type: 'text', text: '# Notes' },
    ]);
  });

  it('gives structuredContent as JSON only when there is no text', () => {
    const structured = { temperature: 21.5, unit: 'C' };
    const withoutText = convertToolCallResult({ isError: false, content: [], structuredContent: structured });
    expect(withoutText.content).toEqual([{ type: 'text', text: JSON.stringify(structured, null, 2) }]);
    const withText = convertToolCallResult({
      isError: false,
      content: [{ type: 'text', text: '21.5 C' }],
      structuredContent: structured,
    });
    expect(withText.content).toEqual([{ type: 'text', text: '21.5 C' }]);
  });

  it('names an unknown block type instead of dropping it', () => {
    const result = convertToolCallResult({ isError: false, content: [{ type: 'hologram', data: 'x' }] });
    expect(result.content).toEqual([{ type: 'text', text: '[unsupported content of type "hologram"]' }]);
  });

  it('keeps isError and never returns empty content', () => {
    expect(convertToolCallResult({ isError: true, content: [] })).toEqual({
      isError: true,
      content: [{ type: 'text', text: '(the tool reported an error without a message)' }],
    });
    expect(convertToolCallResult({ isError: false, content: [] }).content).toHaveLength(1);
  });
});

describe('base64Size', () => {
  it('counts decoded bytes, padding included', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 100]) {
      expect(base64Size(Buffer.alloc(length).toString('base64'))).toBe(length);
    }
  });
});
