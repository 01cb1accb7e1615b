/** Small pure parts of the agent: call grouping, session context, provider choice, stream assembly. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { buildSessionContext, foldersFromGitRoot } from './context.js';
import { ResponseAssembler } from './provider/anthropic.js';
import { chooseProvider, DEFAULT_BASE_URL, DEFAULT_MODEL } from './providers.js';
import { groupCalls } from './schedule.js';
import { streamEvents } from './testing/fake-anthropic.test-helpers.js';

describe('groupCalls', () => {
  test.prop([fc.array(fc.boolean(), { maxLength: 30 })])(
    'keeps call order; parallel groups hold only safe calls, never two in a row',
    (safety) => {
      const calls = safety.map((safe, index) => ({ index, safe }));
      const groups = groupCalls(calls, (c) => c.safe);
      expect(groups.flatMap((g) => g.calls)).toEqual(calls);
      for (const [i, group] of groups.entries()) {
        if (group.parallel) expect(group.calls.every((c) => c.safe)).toBe(true);
        else expect(group.calls).toHaveLength(1);
        if (i > 0 && group.parallel) expect(groups[i - 1]!.parallel).toBe(false);
      }
    },
  );
});

describe('session context', () => {
  it('includes FURFLY.md from the git root down to the working directory, outermost first, each capped', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'furfly-ctx-'));
    try {
      mkdirSync(path.join(root, '.git'));
      mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
      writeFileSync(path.join(root, 'FURFLY.md'), 'root note');
      writeFileSync(path.join(root, 'a', 'b', 'FURFLY.md'), 'x'.repeat(50));
      const cwd = path.join(root, 'a', 'b');
      expect(foldersFromGitRoot(cwd)).toEqual([root, path.join(root, 'a'), cwd]);
      const text = buildSessionContext({
        cwd,
        platform: 'linux',
        now: new Date('2025-05-06T10:00:00Z'),
        capChars: 20,
      });
      expect(text).toContain(`Working directory: ${cwd}`);
      expect(text).toContain('Platform: linux');
      expect(text).toContain('Date: 2025-05-06');
      expect(text.indexOf('root note')).toBeLessThan(text.indexOf('x'.repeat(20)));
      expect(text).not.toContain('x'.repeat(21));
      expect(text).toContain('cut at 20 characters of 50');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('chooseProvider', () => {
  const provider = { name: 'main', protocol: 'anthropic' as const, api_key: 'sk-config', model: 'm1' };
  it('prefers the config, falls back to ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', () => {
    expect(chooseProvider([provider], { ANTHROPIC_API_KEY: 'sk-env' })).toEqual({
      ok: true,
      settings: { name: 'main', apiKey: 'sk-config', model: 'm1', baseUrl: DEFAULT_BASE_URL },
    });
    const fromEnv = chooseProvider([], {
      ANTHROPIC_API_KEY: 'sk-env',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(fromEnv.ok && fromEnv.settings.apiKey).toBe('sk-env');
    expect(fromEnv.ok && fromEnv.settings.baseUrl).toBe('http://127.0.0.1:9');
  });
  it('never fills the empty api_key of a provider with its own base_url from ANTHROPIC_API_KEY (red team, #13)', () => {
    // A project file's `api_key: " "` next to its base_url would otherwise get the environment's key sent there.
    const env = { ANTHROPIC_API_KEY: 'sk-env-secret' };
    const moved = { ...provider, api_key: ' ', base_url: 'http://127.0.0.1:9' };
    const choice = chooseProvider([moved], env);
    expect(choice.ok).toBe(false);
    expect(!choice.ok && choice.message).toMatch(/not sent to the base_url http:\/\/127\.0\.0\.1:9/);
    expect(JSON.stringify(choice)).not.toContain('sk-env-secret');
    // Without a base_url the documented fallback stays.
    const plain = chooseProvider([{ ...provider, api_key: ' ' }], env);
    expect(plain.ok && plain.settings.apiKey).toBe('sk-env-secret');
  });
  it('without a key says what to set', () => {
    const choice = chooseProvider([], {});
    expect(choice.ok).toBe(false);
    expect(!choice.ok && choice.message).toContain('ANTHROPIC_API_KEY');
  });
});

describe('ResponseAssembler', () => {
  test.prop([fc.jsonValue().map((v) => ({ value: v })), fc.nat()])(
    'reassembles tool input from any split of input_json_delta',
    (input, cutSeed) => {
      const json = JSON.stringify(input);
      const cut = cutSeed % (json.length + 1);
      const events = streamEvents([{ type: 'tool_use', name: 't', input, id: 'toolu_x' }], 'tool_use', {});
      const pieces = [json.slice(0, cut), json.slice(cut)];
      const assembler = new ResponseAssembler(() => {});
      for (const event of events) {
        if (event.type === 'content_block_delta') continue;
        if (event.type === 'content_block_stop') {
          for (const piece of pieces) {
            assembler.accept({
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'input_json_delta', partial_json: piece },
            });
          }
        }
        assembler.accept(event);
      }
      expect(assembler.finish().content).toEqual([
        { type: 'tool_use', id: 'toolu_x', name: 't', input: JSON.parse(json) },
      ]);
    },
  );

  it('rejects a stream that ends before message_stop', () => {
    const assembler = new ResponseAssembler(() => {});
    for (const event of streamEvents([{ type: 'text', text: 'hi' }], 'end_turn', {}, false))
      assembler.accept(event);
    expect(() => assembler.finish()).toThrow(/ended before the message was complete/);
  });
});

describe('Agent.answerOpenToolCalls', () => {
  it('answers every tool call of the last assistant message, once', async () => {
    const { Agent } = await import('./loop.js');
    const agent = new Agent({} as never);
    agent.messages.push(
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'x', input: {} },
          { type: 'tool_use', id: 'b', name: 'y', input: {} },
        ],
      },
    );
    agent.answerOpenToolCalls('stopped');
    agent.answerOpenToolCalls('stopped');
    expect(agent.messages).toHaveLength(3);
    const last = agent.messages[2]!;
    expect(
      last.content.map((b) => (b.type === 'tool_result' ? [b.tool_use_id, b.is_error] : b.type)),
    ).toEqual([
      ['a', true],
      ['b', true],
    ]);
  });
});

describe('DEFAULT_MODEL', () => {
  it('is not on the SDK deprecation list (the SDK would warn on stderr at every request)', () => {
    // Not exported by the SDK, so read from the installed package's file.
    const file = fileURLToPath(
      new URL('../../node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.js', import.meta.url),
    );
    const listed = [...readFileSync(file, 'utf8').matchAll(/'([^']+)':/g)].map((m) => m[1]);
    expect(listed).toContain('claude-sonnet-4-5');
    expect(listed).not.toContain(DEFAULT_MODEL);
  });
});
