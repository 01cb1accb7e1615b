import type { Check } from './check.js';
export const httpChecks: Check[] = [];
