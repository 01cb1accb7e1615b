/** Every check of the modern era (2026-07-28), one file per specification page. */
import type { Check } from '../check.js';
import { baseChecks } from './base.js';
import { cachingChecks } from './caching.js';
import { cachingPagesChecks } from './caching-pages.js';
import { modernContentFormatsChecks } from './content-formats.js';
import { discoverChecks } from './discover.js';
import { extensionChecks } from './extensions.js';
import { inputRequestsChecks } from './input-requests.js';
import { listenScopeChecks } from './listen-scope.js';
import { loggingChecks } from './logging.js';
import { mrtrChecks } from './mrtr.js';
import { modernResourcesChecks } from './resources.js';
import { runJudgedChecks } from './run-judged.js';
import { statelessnessChecks } from './statelessness.js';
import { modernHttpChecks } from './streamable-http.js';
import { modernHttpHeaderChecks } from './streamable-http-headers.js';
import { subscriptionsChecks } from './subscriptions.js';
import { toolHeaderChecks } from './tool-headers.js';
import { versioningChecks } from './versioning.js';

export const modernChecks: readonly Check[] = [
  ...discoverChecks,
  ...versioningChecks,
  ...baseChecks,
  ...modernHttpChecks,
  ...modernResourcesChecks,
  ...mrtrChecks,
  ...subscriptionsChecks,
  ...cachingChecks,
  ...loggingChecks,
  ...modernContentFormatsChecks,
  ...inputRequestsChecks,
  // Requirements without a legacy counterpart (conformance for both generations, #16).
  ...toolHeaderChecks,
  ...extensionChecks,
  ...statelessnessChecks,
  ...runJudgedChecks,
  ...modernHttpHeaderChecks,
  ...cachingPagesChecks,
  ...listenScopeChecks,
];
