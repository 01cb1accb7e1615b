import { describe, expect, it } from 'vitest';
import { PASTE_CHUNK, PasteInput } from './paste.js';

/** Feeds chunks through a PasteInput; returns what readline would have read, and the input. */
function feed(chunks: readonly string[], now = () => 0): { toReadline: string; input: PasteInput } {
  const input = new PasteInput({ now });
  let toReadline = '';
  input.on('data', (data: Buffer) => {
    toReadline += data.toString('utf8');
  });
  for (const chunk of chunks) input.write(Buffer.from(chunk, 'utf8'));
  return { toReadline, input };
}

describe('PasteInput', () => {
  it('passes typed keys and control sequences through unchanged', () => {
    const keys = ['h', 'i', '\x1b[D', '\x03', '\r', '\x7f'];
    expect(feed(keys).toReadline).toBe(keys.join(''));
  });

  it('replaces a bracketed paste by a placeholder, even with the markers cut across reads', () => {
    const { toReadline, input } = feed(['look: \x1b[20', '0~line one\rline', ' two\x1b[2', '01~ ok\r']);
    expect(toReadline).toBe('look: [paste #1] ok\r');
    expect(input.expand('look: [paste #1] ok')).toBe('look: line one\nline two ok');
    // Used once: a later line with the same text is left alone.
    expect(input.expand('[paste #1]')).toBe('[paste #1]');
  });

  it('treats a large plain read as a paste, and its quick tail as part of it', () => {
    const big = 'z'.repeat(PASTE_CHUNK);
    const { toReadline, input } = feed([big, big, 'tail', '\r']);
    expect(toReadline).toBe('[paste #1]\r');
    expect(input.expand('[paste #1]')).toBe(`${big}${big}tail`);
  });

  it('a key typed a while after a paste is typed text, not paste', () => {
    let clock = 0;
    const input = new PasteInput({ now: () => clock });
    let toReadline = '';
    input.on('data', (data: Buffer) => {
      toReadline += data.toString('utf8');
    });
    input.write('q'.repeat(PASTE_CHUNK));
    clock = 1000;
    input.write('k');
    expect(toReadline).toBe('[paste #1]k');
  });

  it('what reaches the line editor does not grow with the size of the paste', () => {
    const sizes = [10_000, 1_000_000, 5_000_000].map((size) => {
      const chunk = 'w'.repeat(4096);
      const chunks = Array.from({ length: Math.ceil(size / chunk.length) }, () => chunk);
      const { toReadline, input } = feed(['\x1b[200~', ...chunks, '\x1b[201~']);
      expect(input.storedLength).toBe(chunks.length * chunk.length);
      return toReadline.length;
    });
    expect(new Set(sizes).size).toBe(1);
  });
});
