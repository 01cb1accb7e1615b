/** Every check of the suite. The runner orders them by section; within a section, as listed here. */
import type { Check } from './check.js';
import { httpChecks } from './http.js';
import { jsonrpcChecks } from './jsonrpc.js';
import { lifecycleChecks } from './lifecycle.js';
import { modernChecks } from './modern/index.js';
import { promptsChecks } from './prompts.js';
import { resourcesChecks } from './resources.js';
import { securityChecks } from './security.js';
import { stdioChecks } from './stdio.js';
import { toolsChecks } from './tools.js';

export const ALL_CHECKS: readonly Check[] = [
  ...lifecycleChecks,
  ...jsonrpcChecks,
  ...stdioChecks,
  ...httpChecks,
  ...toolsChecks,
  ...resourcesChecks,
  ...promptsChecks,
  ...securityChecks,
  // The modern era (2026-07-28); each declares `eras: ['modern']`.
  ...modernChecks,
];
