import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { stderrCause } from './stderr-cause.js';

// Real stderr of dying programs, as Node 20 and Python 3 print them.
const NODE_MISSING_MODULE = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/nonexistent/module/x.js'
Require stack:
- /tmp/die.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Object.<anonymous> (/tmp/die.js:1:1) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/tmp/die.js' ]
}

Node.js v20.20.2
`;

const NODE_ESM_PACKAGE = `node:internal/modules/esm/resolve:873
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'nope-pkg' imported from /srv/index.js
    at packageResolve (node:internal/modules/esm/resolve:873:9) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v20.20.2
`;

const PYTHON = `Traceback (most recent call last):
  File "<string>", line 1, in <module>
ModuleNotFoundError: No module named 'nonexistent_mod'
`;

describe('stderrCause', () => {
  it.each([
    ['a Node require failure', NODE_MISSING_MODULE, "Error: Cannot find module '/nonexistent/module/x.js'"],
    [
      'a Node ESM failure',
      NODE_ESM_PACKAGE,
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'nope-pkg' imported from /srv/index.js",
    ],
    ['a Python traceback', PYTHON, "ModuleNotFoundError: No module named 'nonexistent_mod'"],
    [
      'a log ending in a fatal line',
      'listening on stdio\nfatal: missing API_KEY\n',
      'fatal: missing API_KEY',
    ],
    ['a plain last line', 'starting\nport 3000 is taken\n', 'port 3000 is taken'],
    [
      'CRLF line ends',
      'one\r\nTypeError: x is not a function\r\n    at f (a.js:1:1)\r\n',
      'TypeError: x is not a function',
    ],
  ])('picks the cause of %s', (_name, text, cause) => {
    expect(stderrCause(text)).toBe(cause);
  });

  it('says nothing for stderr that holds only noise', () => {
    expect(stderrCause('\n   \n    at x (y.js:1:1)\nNode.js v20.1.0\n')).toBe('');
  });

  it('caps a very long line', () => {
    const cause = stderrCause(`Error: ${'x'.repeat(5000)}`);
    expect(cause.length).toBeLessThanOrEqual(301);
    expect(cause.endsWith('…')).toBe(true);
  });

  test.prop([fc.string({ maxLength: 2000 })])(
    'returns one line, at most 301 characters, found in the text',
    (text) => {
      const cause = stderrCause(text);
      expect(cause).not.toMatch(/[\r\n]/);
      expect(cause.length).toBeLessThanOrEqual(301);
      if (cause !== '' && !cause.endsWith('…')) expect(text).toContain(cause);
    },
  );
});
