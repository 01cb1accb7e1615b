/** A throw-away project folder and a tool context for the built-in tool tests. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SessionState } from '../session-state.js';
import type { ContentPart, ToolContext } from '../tool.js';

export interface TempProject {
  root: string;
  write(relative: string, content: string | Buffer): string;
  context(overrides?: Partial<ToolContext>): ToolContext;
  remove(): void;
}

export function makeTempProject(): TempProject {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'furfly-tools-')));
  const session = new SessionState();
  return {
    root,
    write(relative, content) {
      const absolute = path.join(root, relative);
      mkdirSync(path.dirname(absolute), { recursive: true });
      writeFileSync(absolute, content);
      return absolute;
    },
    context: (overrides = {}) => ({
      projectRoot: root,
      signal: new AbortController().signal,
      session,
      ...overrides,
    }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export const textOf = (content: ContentPart[]): string =>
  content.map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`)).join('');
