import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { type McpCommandOptions, registerMcpCommands, runMcpCommand, transportFromOptions } from './mcp.js';

const wellBehaved = fileURLToPath(new URL('../../../dist/test-servers/well-behaved.js', import.meta.url));
const serverLine = `"${process.execPath}" "${wellBehaved}"`;

async function run(action: string | undefined, args: string[], options: McpCommandOptions) {
  let stdout = '';
  let stderr = '';
  const code = await runMcpCommand(action, args, options, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

describe('furfly mcp (in-process, against the compiled well-behaved server)', () => {
  it('tools lists the tools', async () => {
    const { code, stdout, stderr } = await run('tools', [], { stdio: serverLine });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\(protocol 2025-11-25, legacy era\): 7 tools\n/);
    expect(stdout).toMatch(/^ {2}echo +\S/m);
  });

  it('tools --json prints the era, the version and the tool list as JSON', async () => {
    const { code, stdout } = await run('tools', [], { stdio: serverLine, json: true });
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as { era: string; protocolVersion: string; tools: { name: string }[] };
    expect(printed).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    expect(printed.tools.map((t) => t.name)).toContain('structured');
  });

  it('call prints the text content; --json prints the whole result', async () => {
    expect(await run('call', ['echo', '{"message":"hi there"}'], { stdio: serverLine })).toEqual({
      code: 0,
      stdout: '  hi there\n',
      stderr: '',
    });
    const json = await run('call', ['add', '{"a":1,"b":2}'], { stdio: serverLine, json: true });
    expect(JSON.parse(json.stdout)).toEqual({ isError: false, content: [{ type: 'text', text: '3' }] });
  });

  it('takes the server command after -- as well as from --stdio', async () => {
    const command = [process.execPath, wellBehaved];
    expect(await run('call', ['echo', '{"message":"via --"}'], { '--': command })).toEqual({
      code: 0,
      stdout: '  via --\n',
      stderr: '',
    });
    const both = await run('tools', [], { stdio: serverLine, '--': command });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both --stdio and a command after --');
  });

  it('call exits 1 when the tool returns isError', async () => {
    const { code, stdout } = await run('call', ['fail', '{"message":"planned failure"}'], {
      stdio: serverLine,
    });
    expect(code).toBe(1);
    expect(stdout).toContain('planned failure');
  });

  it('reports a server that cannot start, exit 1', async () => {
    const { code, stderr } = await run('tools', [], {
      stdio: 'furfly-no-such-binary --token secret',
      timeout: 5000,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^furfly mcp: server "furfly-no-such-binary": could not start the server process: .*ENOENT\n$/,
    );
    expect(stderr).not.toContain('secret');
  });

  it.each([
    [undefined, [], {}, 'missing action'],
    ['nope', [], { stdio: 'x' }, 'unknown action "nope"'],
    ['tools', [], {}, '--stdio'],
    ['tools', [], { stdio: 'node "unterminated' }, 'unterminated'],
    ['call', [], { stdio: 'node x' }, 'usage: furfly mcp call'],
    ['call', ['echo', '{bad'], { stdio: 'node x' }, 'not valid JSON'],
    ['call', ['echo', '[1]'], { stdio: 'node x' }, 'must be a JSON object'],
    ['call', ['echo', '{}'], { stdio: 'node x', timeout: 'soon' }, '--timeout'],
  ] as const)('usage error: %s %j %j', async (action, args, options, message) => {
    const { code, stderr } = await run(action, [...args], options as McpCommandOptions);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('transportFromOptions names the server by program and script, never by the other arguments', () => {
    expect(transportFromOptions({ stdio: '/usr/bin/node /srv/mcp/server.js --api-key abc' }).name).toBe(
      'node server.js',
    );
    expect(transportFromOptions({ stdio: 'uvx mcp-server-git --token abc' }).name).toBe('uvx');
    expect(transportFromOptions({ stdio: 'python3 srv.py' }).name).toBe('python3 srv.py');
  });

  it('cac parses the command line into action, arguments and options', () => {
    const cli = cac('furfly');
    registerMcpCommands(cli);
    cli.parse(
      ['node', 'furfly', 'mcp', 'call', '--stdio', 'node a b', 'echo', '{"message":"42"}', '--json'],
      {
        run: false,
      },
    );
    expect(cli.matchedCommand?.name).toBe('mcp');
    expect(cli.args).toEqual(['call', 'echo', '{"message":"42"}']);
    expect(cli.options).toMatchObject({ stdio: 'node a b', json: true });
    // No default from cac: without --timeout a configured server's own timeouts apply (else 30 s).
    expect(cli.options.timeout).toBeUndefined();
  });
});
