// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the subject of these strings.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { locatedMap } from './tree.test-helpers.js';
import { referencedVariables } from './variables.js';

describe('referencedVariables', () => {
  it('lists every ${VAR} name in the expanded fields, with or without default, disabled servers too', () => {
    const root = locatedMap(
      {
        providers: [{ name: 'p', api_key: '${P_KEY}', base_url: '${P_URL:-http://x}' }],
        mcp_servers: {
          gh: {
            type: 'stdio',
            command: 'gh-${GH_BIN}',
            args: ['$${NOT_A_VAR}', '${ARG_VAR}'],
            env: { T: '${GH_TOKEN}' },
          },
          web: { type: 'http', url: 'https://h/${URL_VAR}', headers: { A: 'Bearer ${HEADER_VAR}' } },
          off: { type: 'stdio', enabled: false, command: 'x', env: { T: '${OFF_TOKEN}' } },
        },
        permissions: { allow_paths: ['${NOT_EXPANDED}'] },
      },
      'f.yaml',
    );
    expect(referencedVariables(root)).toEqual([
      'ARG_VAR',
      'GH_BIN',
      'GH_TOKEN',
      'HEADER_VAR',
      'OFF_TOKEN',
      'P_KEY',
      'P_URL',
      'URL_VAR',
    ]);
  });

  it('comes with a loaded config', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'furfly-vars-'));
    try {
      mkdirSync(path.join(dir, 'home'));
      mkdirSync(path.join(dir, 'proj', '.furflycode'), { recursive: true });
      writeFileSync(
        path.join(dir, 'proj', '.furflycode', 'config.yaml'),
        'mcp_servers:\n  db:\n    type: stdio\n    command: db\n    env:\n      DB_URL: "${DB_URL}"\n',
      );
      const loaded = loadConfig({
        cwd: path.join(dir, 'proj'),
        env: { FURFLY_HOME: path.join(dir, 'home'), DB_URL: 'postgres://x' },
      });
      expect(loaded.ok && loaded.referencedVariables).toEqual(['DB_URL']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
