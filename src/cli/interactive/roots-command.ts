/**
 * `/roots`: the folders furfly tells servers about (client/roots). `/roots` lists them, `/roots add <dir>`
 * and `/roots remove <dir>` change them for this session, and every legacy server that declared
 * `roots.listChanged` hears `notifications/roots/list_changed` (a 2026-07-28 server asks per request).
 * Roots are guidance for servers; changing them changes no permission (that is `permissions.allow_paths`).
 */
import path from 'node:path';
import type { AgentRuntime } from '../../agent/runtime.js';
import { terminalLine } from '../../terminal/sanitize.js';
import { isFolder } from '../cwd-option.js';

export interface RootsCommandContext {
  runtime: AgentRuntime;
  print(text: string): void;
}

export const ROOTS_COMMAND = {
  summary: 'folders servers are told about (/roots add|remove <dir>)',
  run: ({ runtime, print }: RootsCommandContext, argument: string): undefined => {
    const [verb = '', ...rest] = argument.trim().split(/\s+/);
    const target = rest.join(' ');
    if (verb === '') {
      const folders = runtime.roots.folderList();
      print(
        folders.length === 0
          ? 'No roots.'
          : ['Roots (told to servers that ask):', ...folders.map((f) => `  ${terminalLine(f)}`)].join('\n'),
      );
      return undefined;
    }
    if ((verb !== 'add' && verb !== 'remove') || target === '') {
      print('Usage: /roots, /roots add <dir>, /roots remove <dir>');
      return undefined;
    }
    const folder = path.resolve(runtime.projectRoot, target);
    if (verb === 'add') {
      if (!isFolder(folder)) {
        print(`No such folder: ${terminalLine(folder)}`);
        return undefined;
      }
      print(
        runtime.roots.add(folder)
          ? `Root added: ${terminalLine(folder)} (servers are told; permissions are unchanged)`
          : `Already a root: ${terminalLine(folder)}`,
      );
      return undefined;
    }
    print(
      runtime.roots.remove(folder)
        ? `Root removed: ${terminalLine(folder)}`
        : `Not a root: ${terminalLine(folder)}`,
    );
    return undefined;
  },
};
