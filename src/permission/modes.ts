/** Permission modes, from strict to loose. */

export type PermissionMode = 'strict' | 'accept-edits' | 'auto' | 'bypass';

export const PERMISSION_MODES: readonly PermissionMode[] = ['strict', 'accept-edits', 'auto', 'bypass'];

/** The category strings the service understands; the tools layer uses the same three values. */
export type PermissionCategory = 'read' | 'edit' | 'execute';

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value);
}

export const MODE_SUMMARIES: Readonly<Record<PermissionMode, string>> = {
  strict: 'ask before every tool call',
  'accept-edits': 'reading and editing run; commands and remote tools ask',
  auto: 'reading and editing run; shell commands run unless destructive; other tools ask',
  bypass: 'everything runs (deny rules still apply)',
};
