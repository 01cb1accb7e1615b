/**
 * Where a config value came from: a position in a file, or a default supplied by furfly.
 * Every value keeps its origin through parse, merge and expansion so that errors and
 * `furfly config show --origin` can point at the line that produced it.
 */
export interface FileOrigin {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

export type Origin = FileOrigin | 'default';

export function formatOrigin(origin: Origin): string {
  return origin === 'default' ? 'default' : `${origin.file}:${origin.line}:${origin.col}`;
}
