/**
 * The extraction behind fixtures/conformance/spec-requirements: what counts as a normative sentence, the
 * headings it stands under, who it binds, and keys that survive re-extraction.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindsOf,
  extractPage,
  extractVersion,
  hashOf,
  openSource,
  sentencesOf,
  serialise,
} from './spec-requirements.js';

const PAGE = `---
title: Example
---

Intro text with no keyword.

## Messages

Servers **MUST** answer every request. Clients **SHOULD NOT** retry at once, e.g. within a second.

\`\`\`typescript
// code MUST be skipped
\`\`\`

### Errors

Servers sending errors **MUST**:

- use a [standard](https://example.com) code
- include a \`message\`

| Header | Rule |
| ------ | ---- |
| \`Mcp-Name\` | Server **MUST** validate it |

## Other

- Receivers **MUST NOT** assume a meaning for these codes.
`;

describe('spec requirement extraction', () => {
  const sentences = extractPage('basic/example', PAGE);

  it('finds every keyword sentence outside code, with its heading path', () => {
    expect(sentences.map((s) => [s.section.join(' > '), s.sentence])).toEqual([
      ['Messages', 'Servers MUST answer every request.'],
      ['Messages', 'Clients SHOULD NOT retry at once, e.g. within a second.'],
      ['Messages > Errors', 'Servers sending errors MUST: use a standard code'],
      ['Messages > Errors', 'Servers sending errors MUST: include a message'],
      ['Messages > Errors', 'Mcp-Name Server MUST validate it'],
      ['Other', 'Receivers MUST NOT assume a meaning for these codes.'],
    ]);
  });

  it('levels, keywords and the party bound', () => {
    expect(sentences.map((s) => [s.level, s.keywords.join('+'), s.binds])).toEqual([
      ['MUST', 'MUST', 'server'],
      ['SHOULD', 'SHOULD NOT', 'client'],
      ['MUST', 'MUST', 'server'],
      ['MUST', 'MUST', 'server'],
      ['MUST', 'MUST', 'server'],
      ['MUST', 'MUST NOT', 'either'],
    ]);
    expect(bindsOf('An authorization server MUST publish metadata.')).toBe('authorization-server');
    expect(bindsOf('When the client asks, the server MUST answer.')).toBe('server');
    expect(bindsOf('The value MUST be a string.')).toBe('unknown');
  });

  it('keys depend on the page and the words only, not on position or markup', () => {
    const moved = extractPage(
      'basic/example',
      `# T\n\n## Elsewhere\n\nServers **MUST** answer   every *request*.\n`,
    );
    expect(moved[0]?.key).toBe(sentences[0]?.key);
    expect(sentences[0]?.key).toBe(`basic/example#${hashOf('Servers MUST answer every request.')}`);
    expect(extractPage('other/page', PAGE)[0]?.key).not.toBe(sentences[0]?.key);
    const twice = extractPage('p', 'Servers **MUST** answer.\n\nServers **MUST** answer.\n');
    expect(twice.map((s) => s.key)).toEqual([
      `p#${hashOf('Servers MUST answer.')}`,
      `p#${hashOf('Servers MUST answer.')}~2`,
    ]);
  });

  it('does not split sentences at abbreviations', () => {
    expect(sentencesOf('Use a token (e.g. a UUID) here. Then stop.')).toEqual([
      'Use a token (e.g. a UUID) here.',
      'Then stop.',
    ]);
  });

  it('reads a checkout folder and gives the same output twice', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'spec-'));
    try {
      const folder = path.join(root, 'docs', 'specification', '2099-01-01', 'basic');
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'example.mdx'), PAGE);
      writeFileSync(path.join(folder, 'index.mdx'), 'Implementations **MUST** work.\n');
      const source = openSource(root);
      const first = serialise(extractVersion(source, '2099-01-01'));
      expect(serialise(extractVersion(openSource(root), '2099-01-01'))).toBe(first);
      const pages = [...new Set(extractVersion(source, '2099-01-01').sentences.map((s) => s.page))];
      expect(pages).toEqual(['basic/example', 'basic/index']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a folder that is neither a checkout nor a git directory', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'spec-'));
    try {
      expect(() => openSource(root)).toThrow(/neither a checkout/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
