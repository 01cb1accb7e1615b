// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these strings.
/** Batch files, registry server.json files and listings become batch entries; bad files are clear errors. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchFileError, loadBatchFiles } from './load.js';

const dir = mkdtempSync(path.join(tmpdir(), 'furfly-batch-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

describe('batch files', () => {
  it('reads a YAML batch with defaults, per-server flags, ${VAR} and cwd relative to the file', () => {
    const batch = file(
      'servers.yaml',
      [
        'version: 1',
        'defaults: { timeout: 3000, call_tools: false }',
        'servers:',
        '  - name: local',
        '    command: node',
        '    args: [server.js, "--token", "${FURFLY_TEST_TOKEN}"]',
        '    env: { LEVEL: "${FURFLY_TEST_LEVEL:-info}" }',
        '    cwd: sub',
        '    call_tools: true',
        '    spec_version: 2025-06-18',
        '  - name: remote',
        '    url: https://mcp.example.com/mcp',
        '    headers: { Authorization: "Bearer ${FURFLY_TEST_TOKEN}" }',
        '    only: [lifecycle.*]',
      ].join('\n'),
    );
    const entries = loadBatchFiles([batch], { env: { FURFLY_TEST_TOKEN: 'tok-1234567890' } });
    expect(entries.map((e) => e.name)).toEqual(['local', 'remote']);
    const [local, remote] = entries;
    expect(local?.target).toEqual({
      transport: 'stdio',
      command: {
        command: 'node',
        args: ['server.js', '--token', 'tok-1234567890'],
        env: { LEVEL: 'info' },
        cwd: path.join(dir, 'sub'),
      },
    });
    expect(local?.flags).toEqual({ timeoutMs: 3000, callTools: true, specVersion: '2025-06-18' });
    // The value from the environment is a secret: never shown in what the report prints of the target.
    expect(local?.display.command).toBe('node server.js --token ***');
    expect(remote?.target).toEqual({
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { authorization: 'Bearer tok-1234567890' },
    });
    expect(remote?.flags.only).toEqual(['lifecycle.*']);
    expect(remote?.secrets).toContain('tok-1234567890');
  });

  it('a plain JSON list works; an unset variable makes that server not runnable, naming it', () => {
    const batch = file(
      'list.json',
      JSON.stringify([
        { name: 'a', command: 'node', args: ['a.js'] },
        { name: 'b', command: 'node', env: { KEY: '${FURFLY_TEST_UNSET_KEY}' } },
        { name: 'a', command: 'node', args: ['a2.js'] },
      ]),
    );
    const entries = loadBatchFiles([batch], { env: {} });
    expect(entries.map((e) => e.name)).toEqual(['a', 'b', 'a #2']);
    expect(entries[1]?.target).toBeUndefined();
    expect(entries[1]?.notRunnable).toBe(
      'needs the variable FURFLY_TEST_UNSET_KEY, which was not passed (--env FURFLY_TEST_UNSET_KEY)',
    );
  });

  it('rejects a file that fits no format with the place and the reason', () => {
    const bad = file('bad.yaml', 'servers:\n  - name: x\n    command: node\n    url: http://127.0.0.1/mcp\n');
    expect(() => loadBatchFiles([bad])).toThrow(BatchFileError);
    expect(() => loadBatchFiles([bad])).toThrow(/bad\.yaml: not a furfly batch file.*at \/servers\/0/);
    const version = file(
      'v.yaml',
      'servers:\n  - name: x\n    command: node\n    spec_version: 2020-01-01\n',
    );
    expect(() => loadBatchFiles([version])).toThrow(/spec_version: must be one of/);
    expect(() => loadBatchFiles([path.join(dir, 'nope.yaml')])).toThrow(/nope\.yaml: cannot read it/);
    const broken = file('broken.json', '{"servers": [');
    expect(() => loadBatchFiles([broken])).toThrow(/broken\.json: not valid JSON/);
  });
});

describe('registry server.json', () => {
  const serverJson = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: 'io.github.example/weather',
    version: '1.2.0',
    packages: [
      {
        registryType: 'npm',
        identifier: '@example/weather-mcp',
        version: '1.2.0',
        transport: { type: 'stdio' },
        packageArguments: [
          { type: 'named', name: '--units', default: 'metric' },
          { type: 'positional', valueHint: 'region', value: 'eu' },
        ],
        environmentVariables: [
          { name: 'WEATHER_API_KEY', isRequired: true, isSecret: true },
          { name: 'WEATHER_LOG', default: 'warn' },
        ],
      },
      { registryType: 'pypi', identifier: 'weather-mcp', version: '1.2.0', transport: { type: 'stdio' } },
      {
        registryType: 'oci',
        identifier: 'docker.io/example/weather',
        version: '1.2.0',
        transport: { type: 'stdio' },
        runtimeArguments: [{ type: 'named', name: '--network', value: 'none' }],
        environmentVariables: [{ name: 'WEATHER_LOG', default: 'warn' }],
      },
      {
        registryType: 'nuget',
        identifier: 'Example.Weather',
        version: '1.2.0',
        transport: { type: 'stdio' },
      },
    ],
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://{region}.weather.example/mcp',
        variables: { region: { default: 'eu' } },
        headers: [
          {
            name: 'X-Api-Key',
            value: '{api_key}',
            isRequired: true,
            isSecret: true,
            variables: { api_key: { isRequired: true } },
          },
        ],
      },
      { type: 'sse', url: 'https://weather.example/sse' },
    ],
  };

  it('maps packages to the commands a user would run and remotes to URLs', () => {
    const at = file('server.json', JSON.stringify(serverJson));
    const entries = loadBatchFiles([at], {
      env: { WEATHER_API_KEY: 'wk-secret-123456', api_key: 'hk-secret-654321' },
    });
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect([...byName.keys()]).toEqual([
      'io.github.example/weather (npm)',
      'io.github.example/weather (pypi)',
      'io.github.example/weather (oci)',
      'io.github.example/weather (nuget)',
      'io.github.example/weather (remote streamable-http)',
      'io.github.example/weather (remote sse)',
    ]);
    expect(byName.get('io.github.example/weather (npm)')?.target).toEqual({
      transport: 'stdio',
      command: {
        command: 'npx',
        args: ['-y', '@example/weather-mcp@1.2.0', '--units', 'metric', 'eu'],
        env: { WEATHER_API_KEY: 'wk-secret-123456', WEATHER_LOG: 'warn' },
      },
    });
    expect(byName.get('io.github.example/weather (pypi)')?.target).toMatchObject({
      command: { command: 'uvx', args: ['weather-mcp==1.2.0'] },
    });
    expect(byName.get('io.github.example/weather (oci)')?.target).toMatchObject({
      command: {
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          '--network',
          'none',
          '-e',
          'WEATHER_LOG',
          'docker.io/example/weather:1.2.0',
        ],
        env: { WEATHER_LOG: 'warn' },
      },
    });
    expect(byName.get('io.github.example/weather (nuget)')?.notRunnable).toMatch(
      /does not start nuget packages/,
    );
    expect(byName.get('io.github.example/weather (remote streamable-http)')?.target).toEqual({
      transport: 'http',
      url: 'https://eu.weather.example/mcp',
      headers: { 'x-api-key': 'hk-secret-654321' },
    });
    expect(byName.get('io.github.example/weather (remote sse)')?.notRunnable).toMatch(/HTTP\+SSE/);
  });

  it('an input nobody supplied makes the entry not runnable, and the reason names it', () => {
    const at = file('server2.json', JSON.stringify(serverJson));
    const entries = loadBatchFiles([at], { env: {} });
    expect(entries[0]?.notRunnable).toBe(
      'needs environment variable WEATHER_API_KEY (pass it with --env WEATHER_API_KEY), which was not supplied',
    );
    expect(entries[4]?.notRunnable).toBe(
      'needs a value for header X-Api-Key: variable api_key (pass it with --env api_key), which was not supplied',
    );
    // The pypi package needs nothing: it stays runnable.
    expect(entries[1]?.target).toBeDefined();
  });

  it('reads a registry listing, and a batch file may point at server.json files', () => {
    const listing = file(
      'listing.json',
      JSON.stringify({
        servers: [
          {
            server: {
              name: 'com.example/one',
              packages: [{ registryType: 'npm', identifier: 'one', version: '1.0.0' }],
            },
            _meta: {},
          },
          {
            server: {
              name: 'com.example/two',
              remotes: [{ type: 'streamable-http', url: 'https://two.example/mcp' }],
            },
          },
        ],
        metadata: { count: 2 },
      }),
    );
    expect(loadBatchFiles([listing]).map((e) => [e.name, e.display])).toEqual([
      ['com.example/one', { transport: 'stdio', command: 'npx -y one@1.0.0' }],
      ['com.example/two', { transport: 'http', url: 'https://two.example/mcp' }],
    ]);
    file(
      'one.json',
      JSON.stringify({
        name: 'com.example/one',
        packages: [{ registryType: 'pypi', identifier: 'one', version: '2' }],
      }),
    );
    const batch = file(
      'mixed.yaml',
      `servers:\n  - registry: one.json\n    name: first\n    timeout: 100\n  - registry: listing.json\n`,
    );
    const entries = loadBatchFiles([batch]);
    expect(entries.map((e) => e.name)).toEqual(['first', 'com.example/one', 'com.example/two']);
    expect(entries[0]?.flags.timeoutMs).toBe(100);
  });
});
