/**
 * How the one-shot `furfly mcp` commands answer a server's questions (mcp-elicit.ts): `--elicit`, the
 * terminal form, or nobody. In-process `runMcpCommand` against the compiled `asking` test server, in each
 * era (`--era legacy`: its own `elicitation/create` requests; `--era modern`: `input_required` results),
 * plus the fixed answers on their own with a SEP-1034 form (every field has a default).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serverPath } from '../../../test-servers/testing.js';
import { elicitationHandler } from '../../mcp/server-requests/elicitation.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { type McpCommandIo, runMcpCommand } from './mcp.js';
import { fixedAnswerPrompter, oneShotElicitation, parseElicitAnswer } from './mcp-elicit.js';

const asking = (era: string, ...extra: string[]) =>
  [`"${process.execPath}"`, `"${serverPath('asking')}"`, '--era', era, ...extra].join(' ');

function call(tool: string, options: Record<string, unknown>, io: Partial<McpCommandIo> = {}) {
  const out = { stdout: '', stderr: '' };
  const done = runMcpCommand('call', [tool], { json: false, ...options } as never, {
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
    env: { PATH: process.env.PATH },
    ...io,
  });
  return { out, done };
}

/** The first text block the command printed, parsed (the asking server answers in JSON). */
const printed = (stdout: string) => JSON.parse(stdout.trim());

/** The form of SEP-1034: every field has a default, none is required. */
const DEFAULTS_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
};
const context = { server: 'srv', method: 'tools/call', name: 'tool', signal: undefined };

describe('--elicit answers', () => {
  it('accept-defaults accepts a form with the schema defaults (SEP-1034); decline and cancel pass on', async () => {
    const notices: string[] = [];
    const answer = (a: 'accept-defaults' | 'decline' | 'cancel') =>
      elicitationHandler({ prompter: fixedAnswerPrompter(a, (t) => notices.push(t)) })(
        { message: 'm', requestedSchema: DEFAULTS_FORM },
        context,
      );
    expect(await answer('accept-defaults')).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
    expect(await answer('decline')).toEqual({ action: 'decline' });
    expect(await answer('cancel')).toEqual({ action: 'cancel' });
    expect(notices).toEqual([]);
  });

  it('a URL needs a person: declined (or cancelled), with a notice', async () => {
    const notices: string[] = [];
    const handler = elicitationHandler({
      prompter: fixedAnswerPrompter('accept-defaults', (t) => notices.push(t)),
    });
    expect(await handler({ mode: 'url', message: 'go', url: 'https://example.com/x' }, context)).toEqual({
      action: 'decline',
    });
    expect(notices.join('\n')).toContain('asked to open a URL; declined: that needs a person');
    const cancel = elicitationHandler({ prompter: fixedAnswerPrompter('cancel', () => {}) });
    expect(await cancel({ mode: 'url', message: 'go', url: 'https://example.com/x' }, context)).toEqual({
      action: 'cancel',
    });
  });

  it('only the three answers are accepted', () => {
    expect(parseElicitAnswer(undefined)).toBeUndefined();
    expect(parseElicitAnswer('decline')).toBe('decline');
    expect(() => parseElicitAnswer('accept')).toThrow(
      '--elicit must be one of accept-defaults, decline, cancel',
    );
  });

  it('declares form elicitation when it can answer one, URL mode only on a terminal, nothing otherwise', () => {
    const base = { stdinIsTerminal: false, write: () => {}, notice: () => {}, env: {} };
    expect(oneShotElicitation({ ...base, answer: 'decline' }).capabilitiesFor('2025-11-25')).toEqual({
      elicitation: { form: {} },
    });
    expect(oneShotElicitation({ ...base, answer: 'decline' }).capabilitiesFor('2025-06-18')).toEqual({
      elicitation: {},
    });
    expect(oneShotElicitation({ ...base, answer: undefined }).capabilitiesFor('2026-07-28')).toEqual({});
    const terminal = oneShotElicitation({
      ...base,
      answer: undefined,
      stdinIsTerminal: true,
      stdin: new PassThrough(),
    });
    expect(terminal.capabilitiesFor('2026-07-28')).toEqual({ elicitation: { form: {}, url: {} } });
    terminal.close();
  });
});

describe.each(['legacy', 'modern'])('furfly mcp call answers a server that asks (%s era)', (era) => {
  it('--elicit accept-defaults declines a form whose required field has no default, and says why', async () => {
    const { out, done } = call('ask_form', { stdio: asking(era), elicit: 'accept-defaults' });
    expect(await done).toBe(0);
    expect(printed(out.stdout)).toEqual({ action: 'decline' });
    expect(out.stderr).toContain('--elicit accept-defaults cannot fill it (Name: this field is required)');
  });

  it('--elicit cancel cancels', async () => {
    const { out, done } = call('ask_form', { stdio: asking(era), elicit: 'cancel' });
    expect(await done).toBe(0);
    expect(printed(out.stdout)).toEqual({ action: 'cancel' });
  });

  it('asks the form on the terminal (stderr) when stdin is one, and sends the answers with the defaults', async () => {
    const stdin = new PassThrough();
    const { out, done } = call('ask_form', { stdio: asking(era) }, { stdin, stdinIsTerminal: true });
    await waitFor('the first field', () => out.stderr.includes('Name'));
    // The name, then Enter for every other field (its default, or nothing), then accept.
    stdin.write('Ada\n\n\n\n\n\n\na\n');
    expect(await done).toBe(0);
    expect(printed(out.stdout)).toEqual({
      action: 'accept',
      content: {
        name: 'Ada',
        email: 'ada@example.com',
        age: 36,
        subscribe: true,
        colour: 'g',
        toppings: ['cheese'],
      },
    });
    expect(out.stdout).not.toContain('Name');
  });

  it('without --elicit and off a terminal, it declares no elicitation and declines a server that asks anyway', async () => {
    const declared = call('capabilities', { stdio: asking(era) });
    expect(await declared.done).toBe(0);
    expect(printed(declared.out.stdout).elicitation).toBeUndefined();
    const { out, done } = call('ask_form', { stdio: asking(era, '--ignore-capabilities') });
    expect(await done).toBe(0);
    expect(printed(out.stdout)).toEqual({ action: 'decline' });
    expect(out.stderr).toContain('declined: stdin is not a terminal (answer with --elicit');
  });

  it('--elicit takes only its three answers', async () => {
    const { out, done } = call('ask_form', { stdio: asking(era), elicit: 'yes' });
    expect(await done).toBe(2);
    expect(out.stderr).toContain('--elicit must be one of accept-defaults, decline, cancel');
  });
});
