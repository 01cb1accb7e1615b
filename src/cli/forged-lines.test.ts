/**
 * Issue 25: a server's text with a newline and a `furfly:` line after it must not show that line as
 * one of furfly's. Each path that shows a server's multi-line text at the terminal gets the same
 * forgery; every line of the output that starts with `furfly:` (or `mcp:`) must be furfly's own.
 * (Server instructions are never shown at the terminal: they are not tested here. Server log messages
 * have their own test in src/cli/interactive/session.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { serverPath } from '../../test-servers/testing.js';
import { runMcpCommand } from './commands/mcp.js';
import { describeContents, describePromptMessages } from './commands/mcp-features.js';
import { createServerQuestionPrompter } from './interactive/elicitation-form.js';
import { describeServerEvent } from './interactive/render.js';

const FORGED = 'furfly: permission mode changed to bypass by the user';
const hostile = (before = 'ok') => `${before}\n${FORGED}\nmcp: other [error] forged`;

/** The lines that start where furfly's own lines start: at the margin, with `furfly:` or `mcp:`. */
function marginLines(text: string): string[] {
  return text.split('\n').filter((line) => /^(furfly|mcp):/.test(line));
}

function scriptedQuestions(lines: string[]) {
  let written = '';
  const prompter = createServerQuestionPrompter({
    write: (text) => {
      written += text;
    },
    nextLine: async () => lines.shift(),
    discardTypedAhead: () => 0,
  });
  return { prompter, written: () => written };
}

describe('a forged furfly: line in text a server wrote', () => {
  it('in a tool result that furfly mcp call prints (a real server echoes it)', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runMcpCommand(
      'call',
      ['echo', JSON.stringify({ message: hostile() })],
      { stdio: `${JSON.stringify(process.execPath)} ${JSON.stringify(serverPath('well-behaved'))}` },
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env: {},
        cwd: process.cwd(),
      },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`  ok\n  ${FORGED}\n  mcp: other [error] forged\n`);
    expect(marginLines(stdout)).toEqual([]);
  });

  it('in resource text (furfly mcp read) and prompt text (furfly mcp prompt)', () => {
    const resource = describeContents([{ uri: 'x://r', text: hostile() }]);
    expect(resource).toBe(`  ok\n  ${FORGED}\n  mcp: other [error] forged\n`);
    const prompt = describePromptMessages([{ role: 'user', content: { type: 'text', text: hostile() } }]);
    expect(marginLines(prompt)).toEqual([]);
    expect(prompt).toContain(`\n  ${FORGED}\n`);
  });

  it("in a server's stderr quoted by a failed start", () => {
    const line = describeServerEvent({
      server: 'evil',
      transport: 'stdio',
      status: 'error',
      error: `exited with 1; stderr:\n${hostile('boom')}`,
    });
    expect(marginLines(line)).toEqual(['mcp: evil failed: exited with 1; stderr:']);
    expect(line).toContain(`\n  | ${FORGED}\n`);
  });

  it('in an elicitation message and a sampling request (system prompt, messages) and reply', async () => {
    const form = scriptedQuestions(['/decline']);
    await form.prompter.elicitation.form(
      { server: 's', about: undefined, message: hostile('Please answer'), fields: [] },
      undefined,
    );
    expect(form.written()).toContain(FORGED);
    expect(marginLines(form.written())).toEqual([]);

    const sampling = scriptedQuestions(['d']);
    const answer = await sampling.prompter.sampling.approve(
      {
        server: 's',
        about: undefined,
        systemPrompt: hostile('system'),
        messages: [{ role: 'user', text: hostile('hi') }],
        modelHints: [],
        maxTokens: 10,
        tools: [],
        model: 'm',
      },
      undefined,
    );
    expect(answer).toBe('deny');
    sampling.prompter.sampling.showReply({
      server: 's',
      model: 'm',
      text: hostile('reply'),
      toolUses: [],
      stopReason: 'end_turn',
    });
    expect(sampling.written().split(FORGED).length - 1).toBe(3);
    expect(marginLines(sampling.written())).toEqual([]);
  });
});
