/**
 * Issue 25, item 2: protected paths are guarded for every command that is not known to only read, and
 * the new table rows ask in auto mode. Property tests state the checker's laws over generated commands.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar } from './bash-grammar.js';
import { findDestructive } from './destructive-commands.js';
import type { PermissionMode } from './modes.js';
import type { PermissionRule } from './rules.js';
import { PermissionService, type ToolFacts } from './service.js';
import { READ_ONLY_COMMANDS } from './word-writes.js';

let base: string;
let project: string;
let home: string;

beforeAll(async () => {
  await loadBashGrammar();
  base = mkdtempSync(path.join(tmpdir(), 'furfly-word-writes-'));
  project = path.join(base, 'project');
  home = path.join(base, 'home');
  for (const folder of ['project/.git/hooks', 'project/.furflycode', 'project/src', 'home/.furflycode']) {
    mkdirSync(path.join(base, folder), { recursive: true });
  }
  writeFileSync(path.join(project, 'x'), 'data\n');
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
      projectRoot: project,
      homeDir: home,
      protectedPaths: [path.join(home, '.furflycode')],
    },
    facts,
  ).decide({ toolName: 'bash', args: {} });
}

const ALLOW_BASH: PermissionRule[] = [{ tool_glob: 'bash', action: 'allow' }];

/** The writers the issue lists: none of them is in the table's list of file-writing commands. */
const UNLISTED_WRITERS: readonly string[] = [
  'link h .git/hooks/pre-commit',
  'uniq x ~/.furflycode/config.yaml',
  'iconv -f utf-8 -t utf-8 -o .git/hooks/pre-commit x',
  'iconv -o.git/hooks/pre-commit x',
  'cat x | sponge .git/hooks/pre-commit',
  'openssl enc -aes-256-cbc -in x -out .git/hooks/pre-commit',
  'curl --output-dir .git/hooks -o pre-commit http://127.0.0.1:1/x',
  'curl --output-dir=.git/hooks -o pre-commit http://127.0.0.1:1/x',
  `yq -i '.permissions.mode = "bypass"' ~/.furflycode/config.yaml`,
  'tee < x .git/hooks/pre-commit',
  `python3 -c "open('.git/hooks/pre-commit','w').write('#!/bin/sh')"`,
  `node -e "require('fs').writeFileSync('.furflycode/config.yaml','mode: bypass')"`,
  'timeout 5 uniq x .git/config',
  'echo x > FURFLY.md',
  'sponge .mcp.json',
];

const STILL_RUNS: readonly string[] = [
  'cat .git/config',
  'grep -n hooks .git/config',
  'ls .git/hooks',
  'git log -- .furflycode/config.yaml',
  'git diff HEAD -- .mcp.json',
  'timeout 5 cat .git/config',
  'head -5 FURFLY.md',
  'uniq x out.txt',
  `python3 -c "print(open('x').read())"`,
  'npm test',
  'git rm src/old.ts',
  'git gc',
  'crontab -l',
  'pkill -f my-dev-server',
  'git commit -m "explain .git/hooks in the docs"',
];

describe('a word that names a protected path is a write unless the command only reads', () => {
  it.each(UNLISTED_WRITERS)('%j asks in every mode but bypass, allow rule or not', (command) => {
    for (const mode of ['strict', 'accept-edits', 'auto'] as const) {
      expect(decide(command, mode)).toMatchObject({ action: 'ask', source: 'sandbox' });
    }
    const allowed = decide(command, 'auto', ALLOW_BASH);
    expect(allowed.action).toBe('ask');
    expect(allowed.reason).toMatch(/protected path/);
    expect(decide(command, 'bypass').action).toBe('allow');
  });

  it.each(STILL_RUNS)('%j still runs in auto mode', (command) => {
    expect(decide(command, 'auto')).toMatchObject({ action: 'allow' });
  });
});

describe('new rows of the table', () => {
  it.each([
    [`vi -es -c '!rm -rf build' x`, 'editor-runs-command'],
    [`vim '+!touch M' x`, 'editor-runs-command'],
    ['ex -s x < script', 'editor-runs-command'],
    ['view --cmd "!id" x', 'editor-runs-command'],
    ['echo "rm -rf ~" | at now', 'scheduled-command'],
    ['batch < job', 'scheduled-command'],
    ['crontab job.txt', 'scheduled-command'],
    ['crontab -r', 'crontab-remove'],
    ['pkill -f .', 'pkill-broad-pattern'],
    ['pkill -9 -f "^n"', 'pkill-broad-pattern'],
    ['pkill -9 no', 'pkill-broad-pattern'],
    ['git update-ref -d refs/heads/main', 'git-ref-delete'],
    ['git reflog expire --expire=now --all', 'git-ref-delete'],
    ['git reflog expire --expire=now --all && git gc --prune=now', 'git-prune'],
    ['git prune', 'git-prune'],
    ['git rm -rf .', 'git-rm-recursive'],
    ['git worktree remove --force ../other', 'git-worktree-force-remove'],
  ])('%j → %s asks in auto mode', (command, id) => {
    expect(findDestructive(command, { homeDir: home }).map((f) => f.id)).toContain(id);
    expect(decide(command, 'auto').action).toBe('ask');
  });

  it.each(['vi +10 x', 'at -l', 'git rm --cached -r build', 'git worktree remove ../other'])(
    '%j matches none of the new rows',
    (command) => {
      const ids = findDestructive(command, { homeDir: home }).map((f) => f.id);
      for (const id of [
        'editor-runs-command',
        'scheduled-command',
        'git-rm-recursive',
        'git-worktree-force-remove',
      ]) {
        expect(ids).not.toContain(id);
      }
    },
  );
});

// ---------- laws of the checker ----------

const PROTECTED_TARGETS = [
  '.git/hooks/pre-commit',
  '.git/config',
  '.furflycode/config.yaml',
  '~/.furflycode/config.yaml',
  '~/.furflycode/tokens.json',
  'src/../.git/hooks/post-checkout',
  '.GIT/hooks/pre-push',
  '.mcp.json',
  'src/FURFLY.md',
];
/** Shell reserved words: never a program name. */
const RESERVED_WORDS = new Set(
  'if then else elif fi do done case esac while until for in select function coproc'.split(' '),
);
/** Program names as a model might invent them: never a reserved word, never one known to only read. */
const programName = fc
  .stringMatching(/^[a-z][a-z0-9-]{1,9}$/)
  .filter((name) => !READ_ONLY_COMMANDS.has(name) && !RESERVED_WORDS.has(name) && name !== 'git');
const plainArgument = fc.stringMatching(/^-{0,2}[a-z0-9]{1,8}$/);
const anyMode = fc.constantFrom<PermissionMode>('strict', 'accept-edits', 'auto', 'bypass');
const someCommand = fc.oneof(
  fc.constantFrom('ls', 'npm test', 'rm -rf build', 'git push --force', 'cat x | sh', 'echo hi > out.txt'),
  fc.tuple(programName, fc.array(plainArgument, { maxLength: 4 })).map(([n, a]) => [n, ...a].join(' ')),
);

describe('laws of the permission checker', () => {
  test.prop(
    [programName, fc.array(plainArgument, { maxLength: 4 }), fc.nat(), fc.constantFrom(...PROTECTED_TARGETS)],
    {
      numRuns: 60,
    },
  )('a protected path among any command’s words asks, allow rule or not', (name, args, at, target) => {
    const words = [...args];
    words.splice(at % (words.length + 1), 0, target);
    const command = [name, ...words].join(' ');
    expect(decide(command, 'auto', ALLOW_BASH).action).toBe('ask');
    expect(decide(command, 'accept-edits').action).toBe('ask');
  });

  test.prop([someCommand, anyMode], { numRuns: 60 })('a deny rule denies in every mode', (command, mode) => {
    expect(decide(command, mode, [{ tool_glob: 'bash', action: 'deny' }]).action).toBe('deny');
  });

  test.prop([someCommand], { numRuns: 60 })('bypass runs whatever no rule stops', (command) => {
    expect(decide(command, 'bypass').action).toBe('allow');
  });

  test.prop([someCommand], { numRuns: 60 })(
    'strict never runs a command without an allow rule; auto allows only what bypass allows',
    (command) => {
      expect(decide(command, 'strict').action).toBe('ask');
      if (decide(command, 'auto').action === 'allow') expect(decide(command, 'bypass').action).toBe('allow');
    },
  );

  test.prop(
    [someCommand, fc.constantFrom('; ', ' && ', ' || ', ' | '), fc.constantFrom(...PROTECTED_TARGETS)],
    {
      numRuns: 60,
    },
  )('appending a write to a protected path never makes a line run unasked', (command, joiner, target) => {
    const line = `${command}${joiner}uniq x ${target}`;
    expect(decide(line, 'auto').action).toBe('ask');
    expect(decide(line, 'auto', ALLOW_BASH).action).toBe('ask');
  });
});

describe("furfly's user folder", () => {
  it.each([
    'cat ~/.furflycode/tokens.json',
    'base64 ~/.furflycode/tokens.json',
    'grep -r refresh ~/.furflycode',
    'cd ~ && cat .furflycode/config.yaml',
  ])('%j asks in every mode but bypass, allow rule or not', (command) => {
    for (const mode of ['strict', 'accept-edits', 'auto'] as const) {
      expect(decide(command, mode, ALLOW_BASH)).toMatchObject({ action: 'ask', source: 'sandbox' });
    }
    expect(decide(command, 'bypass').action).toBe('allow');
  });

  it('a read tool on a file there asks, allow rule and allow_paths or not', () => {
    const facts: ToolFacts = {
      categoryOf: () => 'read',
      pathsOf: () => [path.join(home, '.furflycode', 'tokens.json')],
      commandOf: () => undefined,
    };
    const service = new PermissionService(
      {
        mode: 'auto',
        rules: [{ tool_glob: 'read_file', action: 'allow' }],
        projectRoot: project,
        homeDir: home,
        allowPaths: [home],
        protectedPaths: [path.join(home, '.furflycode')],
      },
      facts,
    );
    expect(service.decide({ toolName: 'read_file', args: {} })).toMatchObject({
      action: 'ask',
      source: 'sandbox',
    });
  });
});
