import { describe, expect, it } from 'vitest';
import { readRequestedSchema } from '../../mcp/server-requests/elicitation-schema.js';
import { createServerQuestionPrompter } from './elicitation-form.js';

/** A terminal stand-in: scripted lines in, everything written kept. */
function scripted(lines: string[], typedAhead = 0) {
  let written = '';
  const prompter = createServerQuestionPrompter({
    write: (text) => {
      written += text;
    },
    nextLine: async () => lines.shift(),
    discardTypedAhead: () => typedAhead,
    openUrl: async () => false,
  });
  return { prompter, written: () => written };
}

const ESC = '\u001b';
const hostileFields = () => {
  const reading = readRequestedSchema({
    type: 'object',
    properties: {
      [`k${ESC}[2J`]: { type: 'string', title: `Title${ESC}]0;pwned\u0007`, description: 'line\rover' },
      pick: { type: 'string', oneOf: [{ const: 'a', title: `A${ESC}[31m` }] },
    },
    required: ['pick'],
  });
  if (!reading.ok) throw new Error(reading.reason);
  return reading.fields;
};

describe('the terminal form', () => {
  it('shows everything a server wrote with its escapes visible, never raw', async () => {
    const { prompter, written } = scripted(['x', '1', 'a']);
    const answer = await prompter.elicitation.form(
      { server: `srv${ESC}[1A`, about: 'tool', message: `Hi${ESC}[2K\rthere`, fields: hostileFields() },
      undefined,
    );
    expect(answer).toEqual({ action: 'accept', answers: { [`k${ESC}[2J`]: 'x', pick: 'a' } });
    expect(written()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(written()).toContain('Title\\x1b]0;pwned\\x07');
    expect(written()).toContain('1) A\\x1b[31m (a)');
  });

  it('/decline and /cancel end the form at any field; the end of input cancels', async () => {
    expect(
      await scripted(['/decline']).prompter.elicitation.form(
        { server: 's', about: undefined, message: '', fields: hostileFields() },
        undefined,
      ),
    ).toEqual({ action: 'decline' });
    expect(
      await scripted(['', '/cancel']).prompter.elicitation.form(
        { server: 's', about: undefined, message: '', fields: hostileFields() },
        undefined,
      ),
    ).toEqual({ action: 'cancel' });
    expect(
      await scripted(['x']).prompter.elicitation.form(
        { server: 's', about: undefined, message: '', fields: hostileFields() },
        undefined,
      ),
    ).toEqual({ action: 'cancel' });
  });

  it('edit asks again from the first field; only the last answers are sent', async () => {
    const { prompter, written } = scripted(['first', '1', 'e', 'second', '', '1', 'a'], 2);
    expect(
      await prompter.elicitation.form(
        { server: 's', about: undefined, message: '', fields: hostileFields() },
        undefined,
      ),
    ).toEqual({
      action: 'accept',
      answers: { [`k${ESC}[2J`]: 'second', pick: 'a' },
    });
    // Lines typed before the question were thrown away, and the person was told.
    expect(written()).toContain('(2 lines typed ahead discarded');
    // A required choice left empty is asked again rather than sent.
    expect(written()).toContain('this field is required; try again');
  });

  it('a link opens only after "o", and says when no browser could be opened', async () => {
    const { prompter, written } = scripted(['maybe', 'o']);
    const url = new URL('https://xn--80ak6aa92e.com/login');
    expect(
      await prompter.elicitation.url(
        { server: 's', about: undefined, message: 'Sign in', url, elicitationId: 'e' },
        undefined,
      ),
    ).toBe('accept');
    expect(written()).toContain('host: xn--80ak6aa92e.com');
    expect(written()).toContain('Please answer o, d or c.');
    expect(written()).toContain('Could not open a browser: open the URL above yourself.');
  });

  it('sampling: the answer maps to once, session or deny; the end of input denies', async () => {
    const question = {
      server: 's',
      about: undefined,
      systemPrompt: undefined,
      messages: [{ role: 'user' as const, text: `hi${ESC}[2J` }],
      modelHints: [],
      maxTokens: undefined,
      tools: [],
      model: 'm',
    };
    const { prompter, written } = scripted(['s']);
    expect(await prompter.sampling.approve(question, undefined)).toBe('session');
    expect(written()).toContain('hi\\x1b[2J');
    expect(await scripted([]).prompter.sampling.approve(question, undefined)).toBe('deny');
  });
});
