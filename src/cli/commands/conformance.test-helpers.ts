/** `furfly conformance` run in-process, with what it writes collected (no terminal: plain output). */
import { type ConformanceOptions, runConformanceCommand } from './conformance.js';

export async function runConformance(
  options: ConformanceOptions,
  command: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runConformanceCommand(options, command, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    interactive: false,
  });
  return { code, stdout, stderr };
}
