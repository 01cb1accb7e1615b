import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { BASH_MAX_OUTPUT_CHARS, bashTool, createBashTool } from './bash.js';
import { builtinTools } from './index.js';
import { makeTempProject, type TempProject, textOf } from './temp-project.test-helpers.js';

let project: TempProject;
const startedPids: number[] = [];

beforeEach(() => {
  project = makeTempProject();
});
afterEach(() => {
  // Safety net: anything a test recorded as started is ended here, even if an assertion failed.
  for (const pid of startedPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  project.remove();
});

const run = async (command: string, extra: { timeout_ms?: number; signal?: AbortSignal } = {}) => {
  const context = project.context(extra.signal ? { signal: extra.signal } : {});
  const result = await bashTool.execute({ command, timeout_ms: extra.timeout_ms }, context);
  return { isError: result.isError, text: textOf(result.content) };
};

/** Alive and not a zombie (a killed process whose parent has not reaped it is dead for our purposes). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

describe('bash', () => {
  it('runs in the project root and reports the exit code', async () => {
    expect(await run('pwd')).toEqual({ isError: false, text: `${project.root}\nExit code: 0` });
  });

  it('treats a non-zero exit as a result, not a tool error, and keeps stderr', async () => {
    const { isError, text } = await run('echo out; echo err >&2; exit 3');
    expect(isError).toBe(false);
    expect(text).toContain('out');
    expect(text).toContain('err');
    expect(text).toMatch(/Exit code: 3$/);
  });

  it('caps long output, keeping the start and the end', async () => {
    const { text } = await run(
      `head -c ${BASH_MAX_OUTPUT_CHARS * 3} /dev/zero | tr '\\0' a; echo; echo THE-END`,
    );
    expect(text.length).toBeLessThan(BASH_MAX_OUTPUT_CHARS + 200);
    expect(text).toMatch(/characters omitted; output is capped/);
    expect(text).toContain('THE-END');
  });

  it('kills the whole process group on timeout', async () => {
    const pidFile = path.join(project.root, 'bg.pid');
    const ready = path.join(project.root, 'ready');
    // The tool's deadline runs on fake timers and is moved past only once the command has started its
    // background job and printed: a machine slow to start bash cannot make the timeout come first.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let outcome: Awaited<ReturnType<typeof run>>;
    try {
      const pending = run(`sleep 30 & echo $! > ${pidFile}; echo started; touch ${ready}; sleep 30`, {
        timeout_ms: 300,
      });
      await waitFor('the ready file', () => existsSync(ready), 10_000);
      vi.advanceTimersByTime(300);
      outcome = await pending;
    } finally {
      vi.useRealTimers();
    }
    const { isError, text } = outcome;
    expect(isError).toBe(true);
    expect(text).toContain('started');
    expect(text).toMatch(/timed out after 300 ms and was killed/);
    const backgroundPid = Number(readFileSync(pidFile, 'utf8'));
    startedPids.push(backgroundPid);
    await waitFor('the background process to end', () => !isAlive(backgroundPid), 10_000);
  });

  it('stops background processes when the command itself finishes', async () => {
    const pidFile = path.join(project.root, 'bg.pid');
    const { isError } = await run(
      `(sleep 30 > /dev/null 2>&1 &) ; sleep 30 & echo $! > ${pidFile}; echo done`,
    );
    expect(isError).toBe(false);
    const backgroundPid = Number(readFileSync(pidFile, 'utf8'));
    startedPids.push(backgroundPid);
    await waitFor('the background process to end', () => !isAlive(backgroundPid), 10_000);
  });

  it('kills the command when the call is cancelled', async () => {
    const controller = new AbortController();
    const marker = path.join(project.root, 'started');
    const pending = run(`touch ${marker}; sleep 30`, { signal: controller.signal });
    await waitFor('the marker file', () => existsSync(marker), 10_000);
    controller.abort();
    const { isError, text } = await pending;
    expect(isError).toBe(true);
    expect(text).toMatch(/cancelled and killed/);
  });

  it('finishes when a child leaves the process group and keeps the output pipe open', async () => {
    const pidFile = path.join(project.root, 'escaped.pid');
    // The timeout is only a backstop (a call that waited for the escaped sleep would hit it and fail);
    // the call should end about 200 ms after bash exits, well before it.
    const pending = run(`setsid -f bash -c 'echo $$ > ${pidFile}; exec sleep 30'; echo started`, {
      timeout_ms: 10_000,
    });
    // Whatever happens to the call, the escaped process is ended by its pid.
    const { isError, text } = await pending.finally(async () => {
      const written = () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '';
      if (
        await waitFor('the escaped pid', written, 10_000).then(
          () => true,
          () => false,
        )
      ) {
        startedPids.push(Number(readFileSync(pidFile, 'utf8')));
      }
    });
    expect(isError).toBe(false);
    expect(text).toContain('started');
    expect(text).toMatch(/Exit code: 0$/);
  }, 15_000);

  it('applies its own default timeout when the call gives none', async () => {
    const tool = createBashTool({ defaultTimeoutMs: 300 });
    const result = await tool.execute({ command: 'sleep 30' }, project.context({}));
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toMatch(/timed out after 300 ms/);
  });

  it('keeps secret variables out of the command environment by default', async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = 'sk-canary-anthropic';
    process.env.ANTHROPIC_AUTH_TOKEN = 'canary-auth-token';
    process.env.SOME_SERVICE_SECRET = 'canary-service-secret';
    process.env.FURFLY_TEST_PLAIN = 'plain-value';
    try {
      const { text } = await run('env');
      expect(text).not.toContain('canary');
      expect(text).toContain('FURFLY_TEST_PLAIN=plain-value');
      expect(text).toMatch(/^PATH=/m);
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    }
  });

  it('drops the variables its creator names, from the environment its creator gives', async () => {
    const tool = createBashTool({
      environment: {
        PATH: process.env.PATH,
        DB_URL: 'postgres://canary',
        KEEP_ME: 'kept',
        X_TOKEN: 'canary',
      },
      dropVariables: ['DB_URL'],
    });
    const result = await tool.execute({ command: 'env' }, project.context({}));
    const text = textOf(result.content);
    expect(text).not.toContain('canary');
    expect(text).toContain('KEEP_ME=kept');
  });

  it('is built with those options by builtinTools', async () => {
    process.env.FURFLY_TEST_DB_URL = 'postgres://canary';
    try {
      const bash = builtinTools({ bash: { dropVariables: ['FURFLY_TEST_DB_URL'] } }).find(
        (t) => t.name === 'bash',
      )!;
      const result = await bash.execute({ command: 'env' }, project.context({}));
      expect(textOf(result.content)).not.toContain('canary');
    } finally {
      delete process.env.FURFLY_TEST_DB_URL;
    }
  });

  it('states the environment rule in its hard constraints', () => {
    expect(bashTool.hardConstraints?.join(' ')).toMatch(/API_KEY.*TOKEN.*SECRET/);
  });

  it('exposes its command for the permission check', () => {
    expect(bashTool.commandOf?.({ command: 'ls -la' })).toBe('ls -la');
  });
});
