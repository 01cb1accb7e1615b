/** Every check of the modern era (2026-07-28), one file per specification page. */
import type { Check } from '../check.js';
import { baseChecks } from './base.js';
import { cachingChecks } from './caching.js';
import { discoverChecks } from './discover.js';
import { errorCodeChecks } from './error-codes.js';
import { loggingChecks } from './logging.js';
import { mrtrChecks } from './mrtr.js';
import { modernResourcesChecks } from './resources.js';
import { modernHttpChecks } from './streamable-http.js';
import { subscriptionsChecks } from './subscriptions.js';
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
  ...errorCodeChecks,
];
