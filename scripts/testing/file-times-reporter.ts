/**
 * A vitest reporter that ends every run with its slowest test files: wall time from the start of the
 * file's collection to its end, and the number of tests. CI output then shows at once which file to look
 * at when the suite gets slower. `FURFLY_FILE_TIMES=N` prints N files (default 15; 0 prints none).
 */
import type { Reporter, TestModule } from 'vitest/node';

interface FileTime {
  file: string;
  project: string;
  seconds: number;
  tests: number;
}

export default class FileTimesReporter implements Reporter {
  private readonly times: FileTime[] = [];
  private root = process.cwd();

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
  }

  onTestModuleEnd(module: TestModule): void {
    const diagnostic = module.diagnostic();
    let tests = 0;
    for (const _ of module.children.allTests()) tests++;
    this.times.push({
      file: module.moduleId.startsWith(this.root)
        ? module.moduleId.slice(this.root.length + 1)
        : module.moduleId,
      project: module.project.name,
      seconds: (diagnostic.collectDuration + diagnostic.duration) / 1000,
      tests,
    });
  }

  onTestRunEnd(): void {
    const limit = Number(process.env.FURFLY_FILE_TIMES ?? 15);
    if (!(limit > 0) || this.times.length === 0) return;
    const slowest = [...this.times].sort((a, b) => b.seconds - a.seconds).slice(0, limit);
    const lines = slowest.map(
      (t) =>
        `${t.seconds.toFixed(1).padStart(7)} s  ${String(t.tests).padStart(4)} tests  [${t.project}] ${t.file}`,
    );
    const total = this.times.reduce((sum, t) => sum + t.seconds, 0);
    process.stdout.write(
      `\n Slowest test files (${this.times.length} files, ${total.toFixed(0)} s of file time in all):\n${lines.join('\n')}\n`,
    );
  }
}
