/**
 * Writes to protected paths that the first version of the check let through in auto mode (red team of
 * issue #13): attached option values, file-writing options of commands it knew only partly (git, find,
 * sed, wget, patch, xxd), and a protected folder spelled in other case, which a case-insensitive file
 * system (macOS, Windows) takes for the same folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar } from './bash-grammar.js';
import type { PermissionMode } from './modes.js';
import type { PermissionRule } from './rules.js';
import { PermissionService, type ToolFacts } from './service.js';

let base: string;

beforeAll(async () => {
  await loadBashGrammar();
  base = mkdtempSync(path.join(tmpdir(), 'furfly-red-team-'));
  // What a glob could match must exist: bash expands against the file system.
  for (const folder of ['project/.git/hooks', 'project/.furflycode', 'project/src', 'home/.ssh']) {
    mkdirSync(path.join(base, folder), { recursive: true });
  }
  writeFileSync(path.join(base, 'home', '.bashrc'), '');
  writeFileSync(path.join(base, 'project', 'src', 'a.ts'), '');
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function decide(command: string, mode: PermissionMode, rules: PermissionRule[] = []) {
  const facts: ToolFacts = { categoryOf: () => 'execute', pathsOf: () => [], commandOf: () => command };
  return new PermissionService(
    {
      mode,
      rules,
      projectRoot: path.join(base, 'project'),
      homeDir: path.join(base, 'home'),
      protectedPaths: [path.join(base, 'home', '.furflycode')],
    },
    facts,
  ).decide({ toolName: 'bash', args: {} });
}

const WRITES_A_PROTECTED_PATH: readonly string[] = [
  // attached and clustered option values of commands the table knows
  'curl -o.git/hooks/pre-commit http://127.0.0.1/x',
  'curl -sSLo .git/hooks/pre-commit http://127.0.0.1/x',
  'unzip -o a.zip -d.git',
  'sort -o.git/config x',
  'cp -t.git/hooks payload',
  // options that write a file, with content the caller chooses
  "git log -1 --output=.git/hooks/pre-commit --format='#!/bin/sh%ntouch /tmp/pwned'",
  'git diff --output .git/hooks/pre-commit',
  'git format-patch -o .git/hooks HEAD~1',
  'git archive -o .git/hooks/x HEAD',
  'git checkout-index -a --prefix=.git/hooks/',
  'git bundle create .git/hooks/x HEAD',
  "find . -maxdepth 0 -fprintf .git/hooks/pre-commit '#!/bin/sh\\ntouch /tmp/pwned\\n'",
  'find . -fls .furflycode/config.yaml',
  'find . -fprint0 ~/.bashrc',
  "sed -n 'w .git/hooks/pre-commit' payload",
  "sed 's/x/y/w .git/hooks/pre-commit' payload",
  "sed -e '1w .git/config' payload",
  "sed -n -e p -e '$W .furflycode/config.yaml' payload",
  'wget -P .git/hooks http://127.0.0.1/pre-commit',
  'patch -o .git/hooks/pre-commit a b',
  'xxd -r payload .git/hooks/pre-commit',
  // other case: the same folder on a case-insensitive file system
  'echo x > .GIT/hooks/pre-commit',
  'echo x > .Git/config',
  'echo x > .furflyCode/config.yaml',
  'echo x >> ~/.BASHRC',
  'echo x > ~/.FurflyCode/config.yaml',
  'cd .GIT/hooks && echo x > pre-commit',
  // globs that bash expands to a protected path
  'echo x > .g*t/hooks/pre-commit',
  'tee .[g]it/config < x',
  'cp x .fu*/config.yaml',
  'echo x >> ~/.bash?c',
  'cd .g* && echo x > config',
  // relative writes after entering the home folder
  'cd ~ && echo x >> .bashrc',
  'cd && echo x >> .bashrc',
  'cd; echo x >> .profile',
  'cd $HOME; echo x >> .bashrc',
  'cd ~/.ssh; cat key.pub >> authorized_keys',
  'pushd ~ && echo x >> .zshrc',
  'cd src && cd ../.git && echo x > config',
];

const STILL_RUNS: readonly string[] = [
  'curl -sSLo out.json http://127.0.0.1/x',
  'wget -qO- http://127.0.0.1/x | head',
  'wget -P downloads http://127.0.0.1/x',
  'git log --oneline -5',
  'git diff --output=changes.patch',
  'git format-patch -o patches HEAD~1',
  'find . -name "*.ts" -fprint list.txt',
  "sed -n '/warn/p' log.txt",
  "sed 's/a/b/w changes.txt' notes.txt",
  "sed -i 's/old/new/' src/a.ts",
  'xxd payload',
  'sort -o sorted.txt list.txt',
  'touch src/*.ts',
  "sed -i 's/a/b/' src/*.ts",
  'cd src && echo x > out.txt',
  '(cd src && ls) && echo hi > out.txt',
  'cd ~ && ls',
];

describe('protected writes the first check missed', () => {
  it.each(WRITES_A_PROTECTED_PATH)('%j asks in every mode but bypass, allow rule or not', (command) => {
    for (const mode of ['strict', 'accept-edits', 'auto'] as const) {
      expect(decide(command, mode)).toMatchObject({ action: 'ask', source: 'sandbox' });
    }
    const allowed = decide(command, 'auto', [{ tool_glob: 'bash', action: 'allow' }]);
    expect(allowed.action).toBe('ask');
    expect(allowed.reason).toMatch(/writes a protected path/);
    expect(decide(command, 'bypass').action).toBe('allow');
  });

  it.each(STILL_RUNS)('%j still runs in auto mode', (command) => {
    expect(decide(command, 'auto').action).toBe('allow');
  });
});
