/**
 * watchOutput on its own, and the interactive session in-process on a "terminal" whose output dies
 * with EIO (what a write to a hung-up terminal gets). The piped case, through the real binary, is in
 * broken-pipe.process.test.ts.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type TempProject, tempProject } from '../../agent/testing/project.test-helpers.js';
import { liveChildCount } from '../../mcp/transports/stdio/process.js';
import { waitFor } from '../../util/wait-for.test-helpers.js';
import { EXIT_BROKEN_PIPE, isReaderGone, watchOutput } from './output-gone.js';
import { runInteractiveSession } from './session.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`write ${code}`), { code });
}

/** A stream that takes writes until `fail(code)`, after which every write errors with that code. */
function dyingOutput() {
  let failure: NodeJS.ErrnoException | undefined;
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      if (failure) callback(failure);
      else {
        text += String(chunk);
        callback();
      }
    },
  });
  return { stream, text: () => text, fail: (code: string) => (failure = errno(code)) };
}

describe('watchOutput', () => {
  it.each(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED'])('%s: the reader is gone, exit 141', async (code) => {
    const out = dyingOutput();
    const watch = watchOutput(out.stream);
    out.stream.write('fine\n');
    expect(watch.exitCode()).toBeUndefined();
    out.fail(code);
    out.stream.write('lost\n');
    await watch.gone;
    expect(watch.signal.aborted).toBe(true);
    expect(watch.exitCode()).toBe(EXIT_BROKEN_PIPE);
    watch.dispose();
  });

  it('another write error (a full disk) ends the output too, with exit 1', async () => {
    const out = dyingOutput();
    const watch = watchOutput(out.stream);
    out.fail('ENOSPC');
    out.stream.write('lost\n');
    await watch.gone;
    expect(isReaderGone(watch.signal.reason)).toBe(false);
    expect(watch.exitCode()).toBe(1);
    watch.dispose();
  });

  it('after dispose, a late write error is swallowed instead of crashing the process', async () => {
    const stream = new PassThrough();
    const watch = watchOutput(stream);
    watch.dispose();
    // Without a listener, emitting 'error' throws; with the swallower left behind it does not.
    expect(() => stream.emit('error', errno('EPIPE'))).not.toThrow();
    expect(watch.signal.aborted).toBe(false);
  });
});

describe('the interactive session on a terminal that goes away', () => {
  let project: TempProject | undefined;
  afterEach(() => {
    project?.cleanup();
    project = undefined;
  });

  it('a write failing with EIO ends the session with 141 and shuts its MCP server down', async () => {
    project = tempProject({ servers: { well: 'read' } });
    const stdin = new PassThrough();
    const out = dyingOutput();
    const exit = runInteractiveSession({
      runtime: { cwd: project.dir, env: project.env, maxRetries: 0 },
      stdin,
      stdout: out.stream,
      terminal: true,
    });
    await waitFor('mcp ready', () => (out.text().includes('mcp: well ready') ? true : undefined), 20_000);
    expect(liveChildCount()).toBe(1);
    out.fail('EIO');
    stdin.write('/help\n');
    expect(await exit).toBe(EXIT_BROKEN_PIPE);
    expect(liveChildCount()).toBe(0);
    expect(out.text()).not.toContain('bye');
    stdin.end();
  });
});
