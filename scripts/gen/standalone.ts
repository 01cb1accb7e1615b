/**
 * Turns Ajv standalone output into an ES module Node 20 can import.
 *
 * Ajv's standalone code with `esm: true` still loads its runtime helpers (ucs2length, equal, formats, ...)
 * with `require(...)`, which does not exist in an ES module. We rewrite each top-level
 * `const x = require("mod").member;` into a static `import` of the CommonJS module (whose default import is
 * `module.exports`) so the output is a plain ESM file with no createRequire tricks, and so a simple scan can
 * prove that generated code only ever touches `ajv/dist/runtime/*` and `ajv-formats/dist/formats`.
 */
import Ajv2020, { _ } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';

const REQUIRE_LINE = /^const (\w+) = require\("([^"]+)"\)(.*);$/gm;

/** Module specifiers the generated code may import; anything else means Ajv changed and we must look. */
const ALLOWED_IMPORT = /^(ajv\/dist\/runtime\/[\w]+|ajv-formats\/dist\/formats)$/;

// These are CommonJS modules: under NodeNext the default import is `module.exports`, whose `.default`
// is the actual class or function.
const Ajv2020Class = Ajv2020.default;
const addFormatsFn = addFormats.default;
const standalone = standaloneCode.default;

export type AjvInstance = InstanceType<typeof Ajv2020Class>;

/** The one Ajv configuration used for every schema furfly ships (generation time only). */
export function createGeneratorAjv(): AjvInstance {
  const ajv = new Ajv2020Class({
    allErrors: true,
    // Strict mode catches typos in schemas (unknown keywords, ignored keywords, bad types).
    strict: true,
    // `type: ["string", "integer"]` is how the spec writes RequestId and ProgressToken.
    allowUnionTypes: true,
    // `not: { required: [...] }` (how a notification says "no id") names properties defined elsewhere.
    strictRequired: false,
    // Content blocks are a `oneOf` tagged by `type`: errors then come from the matching branch only.
    discriminator: true,
    code: {
      source: true,
      esm: true,
      lines: true,
      // Formats are referenced from the package rather than inlined as function source.
      formats: _`require("ajv-formats/dist/formats").fullFormats`,
    },
  });
  addFormatsFn(ajv);
  return ajv;
}

/**
 * Standalone ESM source exporting one validator per entry of `exports` (export name -> schema ref).
 */
export function standaloneModule(ajv: AjvInstance, exports: Record<string, string>): string {
  const raw = standalone(ajv, exports);
  return toEsm(raw);
}

export function toEsm(raw: string): string {
  const imports: string[] = [];
  const moduleVars = new Map<string, string>();
  const body = raw
    .replace(/^"use strict";\n?/, '')
    .replace(REQUIRE_LINE, (_line, name: string, spec: string, rest: string) => {
      if (!ALLOWED_IMPORT.test(spec))
        throw new Error(`standalone code requires an unexpected module: ${spec}`);
      let moduleVar = moduleVars.get(spec);
      if (moduleVar === undefined) {
        moduleVar = `__module${moduleVars.size}`;
        moduleVars.set(spec, moduleVar);
        // Node's default import of a CommonJS module is `module.exports`; bundlers and vitest hand over
        // `exports.default` instead when `__esModule` is set. Normalise to what Node gives.
        imports.push(
          `import ${moduleVar}Raw from "${spec}.js";`,
          `const ${moduleVar} = ${moduleVar}Raw && ${moduleVar}Raw.__esModule ? ${moduleVar}Raw : { default: ${moduleVar}Raw };`,
        );
      }
      return `const ${name} = ${moduleVar}${rest};`;
    });
  if (/\brequire\(/.test(body)) throw new Error('standalone code still calls require() after conversion');
  return `${imports.join('\n')}${imports.length > 0 ? '\n' : ''}${body}`;
}
