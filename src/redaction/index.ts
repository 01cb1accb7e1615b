/** The secret redactor: what is masked (`secret-parts.ts`) and how (`redactor.ts`). Imports nothing of furfly. */
export { isMaskable, MASK, MIN_SECRET_LENGTH, Redactor } from './redactor.js';
export { headerSecrets, headerValueSecrets, maskUrl, urlSecrets } from './secret-parts.js';
