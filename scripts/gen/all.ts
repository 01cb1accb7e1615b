/** Everything `npm run gen` produces, as an in-memory list in a stable order. */
import { generateBatch } from './batch.js';
import { generateConfig } from './config.js';
import type { GeneratedFile } from './files.js';
import { generateMcp } from './mcp.js';

export async function generateAll(repoRoot: string): Promise<GeneratedFile[]> {
  const files = [
    ...(await generateConfig(repoRoot)),
    ...(await generateMcp(repoRoot)),
    ...(await generateBatch(repoRoot)),
  ];
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
