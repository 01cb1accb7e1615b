/**
 * When the furfly process exits or is interrupted, no server survives it. A host process built
 * from the compiled transport (`npm run build` first) starts a server that ignores SIGTERM and
 * stdin EOF; then the host exits or receives a signal, and the server's pid must be gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../util/wait-for.test-helpers.js';

const transportModule = fileURLToPath(
  new URL('../../../../dist/src/mcp/transports/stdio/stdio-transport.js', import.meta.url),
);

const STUBBORN = `process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);`;

/** The host: starts the stubborn server, prints its pid, then does what `ending` says. */
function hostScript(ending: string, extra = ''): string {
  return `
    import { StdioTransport } from ${JSON.stringify(transportModule)};
    ${extra}
    const t = new StdioTransport({ command: process.execPath, args: ['-e', ${JSON.stringify(STUBBORN)}] });
    await t.start();
    console.log(t.pid);
    ${ending}
  `;
}

const hosts: ChildProcess[] = [];
const servers: number[] = [];

afterEach(() => {
  for (const host of hosts.splice(0))
    if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
  for (const pid of servers.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Run a host; resolve with the server pid it printed and a promise of its own exit. */
async function runHost(script: string) {
  const host = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  hosts.push(host);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    host.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    host.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(Number(out.trim().split('\n')[0]));
    });
    host.once('exit', () => reject(new Error(`host exited before printing a pid: ${out}`)));
  });
  servers.push(pid);
  return { host, pid, exit };
}

/** Polls for up to 15 s of real time: a loaded machine can take seconds to reap a killed process. */
function waitUntilDead(pid: number): Promise<boolean> {
  return waitFor(`process ${pid} to be reaped`, () => !isAlive(pid), 15_000, 10).then(
    () => true,
    () => false,
  );
}

describe('no orphaned servers', () => {
  it('kills servers when the host calls process.exit', async () => {
    const { pid, exit } = await runHost(hostScript('setTimeout(() => process.exit(5), 50);'));
    expect(await exit).toEqual({ code: 5, signal: null });
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it('kills a server behind a forking wrapper (sh -c "node ...; true") when the host exits', async () => {
    // The host prints the pid of the real server (the wrapper's child), which says it on stderr.
    const script = `
      import { StdioTransport } from ${JSON.stringify(transportModule)};
      const server = ${JSON.stringify(`${STUBBORN} process.stderr.write('pid=' + process.pid + '\\n');`)};
      const t = new StdioTransport({ command: 'sh', args: ['-c', '"$0" -e "$1"; true', process.execPath, server] });
      await t.start();
      const timer = setInterval(() => {
        const m = /pid=(\\d+)/.exec(t.stderrText());
        if (m) { clearInterval(timer); console.log(m[1]); setTimeout(() => process.exit(5), 50); }
      }, 10);
    `;
    const { pid, exit } = await runHost(script);
    expect(await exit).toEqual({ code: 5, signal: null });
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it('kills servers on SIGINT and still lets the host die of SIGINT (Ctrl-C is not swallowed)', async () => {
    const { host, pid, exit } = await runHost(hostScript('setInterval(() => {}, 1000);'));
    host.kill('SIGINT');
    expect(await exit).toEqual({ code: null, signal: 'SIGINT' });
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'kills servers and lets the host die of %s when signal-exit is loaded too (testcontainers loads it)',
    async (signal) => {
      // signal-exit re-raises only when its listener is the last one; taken for the host's own
      // listener it made both sides wait, and the signal was ignored.
      const extra = `import { createRequire } from 'node:module'; createRequire(${JSON.stringify(transportModule)})('proper-lockfile');`;
      const { host, pid, exit } = await runHost(hostScript('setInterval(() => {}, 1000);', extra));
      host.kill(signal);
      expect(await exit).toEqual({ code: null, signal });
      expect(await waitUntilDead(pid)).toBe(true);
    },
  );

  it('leaves servers alone when the host handles SIGINT itself (Ctrl-C cancels a turn): calls still work', async () => {
    const clientModule = fileURLToPath(new URL('../../../../dist/src/mcp/client.js', import.meta.url));
    const wellBehaved = fileURLToPath(
      new URL('../../../../dist/test-servers/well-behaved.js', import.meta.url),
    );
    const script = `
      import { StdioTransport } from ${JSON.stringify(transportModule)};
      import { McpClient } from ${JSON.stringify(clientModule)};
      const t = new StdioTransport({ command: process.execPath, args: [${JSON.stringify(wellBehaved)}] });
      const c = new McpClient(t, { name: 'wb' });
      await c.connect({ timeoutMs: 20000 });
      console.log(t.pid);
      let handled = 0;
      process.on('SIGINT', () => { handled++; });
      process.kill(process.pid, 'SIGINT');
      while (handled === 0) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 200));
      const r = await c.callTool('echo', { message: 'still there' });
      console.log(JSON.stringify(r));
      await c.close();
    `;
    const { host, pid, exit } = await runHost(script);
    let out = '';
    host.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    expect(await exit).toEqual({ code: 0, signal: null });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toContain('still there');
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it('kills servers on SIGTERM but leaves the decision to a host that handles SIGTERM itself', async () => {
    const handler = `process.on('SIGTERM', () => { console.log('host handled'); setTimeout(() => process.exit(7), 20); });`;
    const { host, pid, exit } = await runHost(hostScript('setInterval(() => {}, 1000);', handler));
    host.kill('SIGTERM');
    expect(await exit).toEqual({ code: 7, signal: null });
    expect(await waitUntilDead(pid)).toBe(true);
  });
});
