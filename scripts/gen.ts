/**
 * `npm run gen`: regenerates `src/generated/` from the JSON Schemas in `schemas/`.
 * `npm run gen:check`: generates into a temporary folder and fails, listing the files, if anything differs.
 *
 * Nothing in furfly compiles a schema at start-up: this script is the only place Ajv runs as a compiler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateAll } from './gen/all.js';
import { diffFolders, writeGenerated } from './gen/files.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(repoRoot, 'src', 'generated');

async function main(): Promise<void> {
  const files = await generateAll(repoRoot);
  if (!process.argv.includes('--check')) {
    writeGenerated(outDir, files);
    console.log(`generated ${files.length} files into ${path.relative(repoRoot, outDir)}/`);
    return;
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'furfly-gen-'));
  try {
    writeGenerated(tmp, files);
    const differing = diffFolders(tmp, outDir);
    if (differing.length > 0) {
      console.error('src/generated/ is stale; run `npm run gen`. Differing files:');
      for (const file of differing) console.error(`  ${file}`);
      process.exitCode = 1;
    } else {
      console.log(`src/generated/ is up to date (${files.length} files)`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
