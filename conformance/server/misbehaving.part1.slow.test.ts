/** Calibration against the misbehaving test servers, half 1 of the fixtures (see misbehaving.test-helpers.ts). */
import { describeMisbehaving } from './misbehaving.test-helpers.js';

describeMisbehaving(1);
