/**
 * cac turns option values that look like numbers into numbers (`--cwd 2024`, `-p 0x10`); prompts and
 * paths are text, so callers read them again, as typed, from the arguments.
 */

/** The last value given to one of `names` (`--name value`, `--name=value`, `-p value`), as typed. */
export function rawOptionValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq !== -1 && names.includes(arg.slice(0, eq))) {
      value = arg.slice(eq + 1);
    } else if (names.includes(arg) && i + 1 < argv.length) {
      value = argv[++i];
    }
  }
  return value;
}
