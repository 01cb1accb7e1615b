/** Public surface of the permission layer. */
export { DESTRUCTIVE_COMMANDS, type DestructiveFinding, findDestructive } from './destructive-commands.js';
export {
  isPermissionMode,
  MODE_SUMMARIES,
  PERMISSION_MODES,
  type PermissionCategory,
  type PermissionMode,
} from './modes.js';
export { PathSandbox } from './paths.js';
export type { PermissionRule, RuleAction } from './rules.js';
export {
  type CommandContainment,
  type DecisionSource,
  type PermissionAction,
  type PermissionDecision,
  type PermissionRequest,
  PermissionService,
  type PermissionSettings,
  type ToolFacts,
} from './service.js';
