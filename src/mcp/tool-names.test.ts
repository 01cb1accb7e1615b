import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  assignToolNames,
  hashedToolName,
  parseRemoteToolName,
  plainToolName,
  ruleIdentities,
  sanitizeNamePart,
  TOOL_NAME_PATTERN,
  toolNameHash,
} from './tool-names.js';

// Names with the characters that matter: valid ones, ones that get replaced, and long ones.
const namePart = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.stringMatching(/^[a-z_.-]{0,12}$/),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

describe('plain names', () => {
  it('joins server and tool with the mcp__ prefix', () => {
    expect(plainToolName('github', 'search_issues')).toBe('mcp__github__search_issues');
  });

  it('replaces characters the model APIs refuse', () => {
    expect(plainToolName('fs', 'read.file')).toBe('mcp__fs__read_file');
    expect(plainToolName('fs', 'lire ü')).toBe('mcp__fs__lire__');
    expect(sanitizeNamePart('')).toBe('_');
  });

  it('hashes a name that would be longer than 64 characters', () => {
    const tool = 'a'.repeat(70);
    const name = plainToolName('server', tool);
    expect(name).toHaveLength(64);
    expect(name).toBe(`mcp__server__${'a'.repeat(64 - 13 - 9)}_${toolNameHash('server', tool)}`);
  });

  it('keeps a name of exactly 64 characters as it is', () => {
    const tool = 'b'.repeat(64 - 'mcp__s__'.length);
    expect(plainToolName('s', tool)).toBe(`mcp__s__${tool}`);
  });
});

describe('assignToolNames', () => {
  it('hashes every tool of a clash after sanitizing, and only those', () => {
    const names = assignToolNames('srv', ['get.user', 'get_user', 'other']);
    expect(names.get('other')).toBe('mcp__srv__other');
    expect(names.get('get.user')).toBe(`mcp__srv__get_user_${toolNameHash('srv', 'get.user')}`);
    expect(names.get('get_user')).toBe(`mcp__srv__get_user_${toolNameHash('srv', 'get_user')}`);
  });

  it('hashes two long names with the same start to different names', () => {
    const a = `${'x'.repeat(70)}a`;
    const b = `${'x'.repeat(70)}b`;
    const names = assignToolNames('srv', [a, b]);
    expect(names.get(a)).not.toBe(names.get(b));
  });

  it('re-hashes a plain name that happens to equal a sibling hash', () => {
    const long = 'y'.repeat(80);
    const lookalike = hashedToolName('s', long).slice('mcp__s__'.length);
    const names = assignToolNames('s', [long, lookalike]);
    expect(new Set(names.values()).size).toBe(2);
  });

  it('lists a repeated real name once', () => {
    expect([...assignToolNames('s', ['a', 'a']).keys()]).toEqual(['a']);
  });

  test.prop([namePart, fc.array(namePart, { maxLength: 12 })])(
    'always gives valid, distinct names for distinct tools',
    (server, tools) => {
      const names = assignToolNames(server, tools);
      expect(names.size).toBe(new Set(tools).size);
      for (const name of names.values()) expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(new Set(names.values()).size).toBe(names.size);
    },
  );

  test.prop([namePart, fc.array(namePart, { maxLength: 12 })])(
    'is stable: the same tools give the same names, whatever their order',
    (server, tools) => {
      const once = assignToolNames(server, tools);
      const again = assignToolNames(server, [...tools].reverse());
      for (const [tool, name] of once) expect(again.get(tool)).toBe(name);
    },
  );

  test.prop([fc.stringMatching(/^[A-Za-z0-9-]{1,10}$/), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)])(
    'leaves names that are already valid and short untouched',
    (server, tool) => {
      expect(assignToolNames(server, [tool]).get(tool)).toBe(`mcp__${server}__${tool}`);
    },
  );
});

describe('rule identities', () => {
  it('are the unsanitised, unhashed server and tool names in both rule forms', () => {
    expect(ruleIdentities('gh', 'repos/delete.v2')).toEqual([
      'mcp__gh__repos/delete.v2',
      'mcp:gh/repos/delete.v2',
    ]);
  });

  it('read back from either form to the configured server, the longest name first', () => {
    const servers = ['gh', 'gh_'];
    expect(parseRemoteToolName('mcp__gh___x', servers)).toEqual({ server: 'gh_', tool: 'x' });
    expect(parseRemoteToolName('mcp__gh___x', ['gh'])).toEqual({ server: 'gh', tool: '_x' });
  });

  it('read back without a configured server up to the first separator', () => {
    const servers = ['gh', 'gh-enterprise'];
    expect(parseRemoteToolName('mcp__gh__delete_repo', servers)).toEqual({
      server: 'gh',
      tool: 'delete_repo',
    });
    expect(parseRemoteToolName('mcp:gh/a/b', servers)).toEqual({ server: 'gh', tool: 'a/b' });
    expect(parseRemoteToolName('mcp__gh-enterprise__x', servers)).toEqual({
      server: 'gh-enterprise',
      tool: 'x',
    });
    expect(parseRemoteToolName('mcp__gitlab__x__y', servers)).toEqual({ server: 'gitlab', tool: 'x__y' });
    expect(parseRemoteToolName('mcp:gitlab/x/y', servers)).toEqual({ server: 'gitlab', tool: 'x/y' });
    expect(parseRemoteToolName('mcp____x', servers)).toBeUndefined();
    expect(parseRemoteToolName('mcp__gh__', servers)).toBeUndefined();
    expect(parseRemoteToolName('bash', servers)).toBeUndefined();
  });
});
