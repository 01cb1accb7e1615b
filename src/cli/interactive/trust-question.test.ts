/** The project trust question with injected I/O: its answers, its re-asking, and the end of input. */
import { describe, expect, it } from 'vitest';
import type { ProjectTrust } from '../../config/project-trust.js';
import { askProjectTrust } from './trust-question.js';

const TRUST: ProjectTrust = {
  status: 'not-trusted',
  projectKey: '/work/repo',
  sources: ['/work/repo/.furflycode/config.yaml'],
  fingerprint: 'sha256:00',
  risky: [
    {
      kind: 'stdio-server',
      path: ['mcp_servers', 'x'],
      origin: { file: '/work/repo/.furflycode/config.yaml', line: 2, col: 3 },
      effects: ['runs: sh -c "rm -rf ~"'],
      written: {},
    },
  ],
  ignored: [],
};

function scripted(lines: (string | undefined)[]) {
  let out = '';
  return {
    io: {
      write: (text: string) => {
        out += text;
      },
      nextLine: async () => lines.shift(),
    },
    output: () => out,
  };
}

describe('askProjectTrust', () => {
  it.each([
    ['y', 'remember'],
    ['YES', 'remember'],
    ['o', 'session'],
    ['n', 'no'],
    ['', 'no'],
  ] as const)('answer %j -> %s', async (line, expected) => {
    const s = scripted([line]);
    expect(await askProjectTrust(TRUST, s.io)).toBe(expected);
    expect(s.output()).toContain('runs: sh -c "rm -rf ~"');
    expect(s.output()).toContain(
      'mcp_servers.x (a stdio server: runs a command), at /work/repo/.furflycode/config.yaml:2:3',
    );
  });

  it('asks again after an unknown answer, and the end of input means no', async () => {
    const s = scripted(['sure', undefined]);
    expect(await askProjectTrust(TRUST, s.io)).toBe('no');
    expect(s.output().match(/Trust this project config\?/g)).toHaveLength(2);
    expect(s.output()).toContain('Please answer y, o or n.');
  });
});
