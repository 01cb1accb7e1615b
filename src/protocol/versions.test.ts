/**
 * The era API: the legacy names keep their meaning (what `initialize` may carry), the modern version is
 * known to the schemas and never offered in an `initialize`.
 */
import { describe, expect, it } from 'vitest';
import {
  eraOf,
  featuresOf,
  isKnownProtocolVersion,
  isModernProtocolVersion,
  isProtocolVersion,
  KNOWN_PROTOCOL_VERSIONS,
  LATEST_MODERN_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
} from './versions.js';

describe('protocol versions and eras', () => {
  it('keeps initialize legacy-only: 2025-11-25 proposed, 2026-07-28 never accepted there', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
    expect(PROTOCOL_VERSIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26']);
    expect(isProtocolVersion('2026-07-28')).toBe(false);
    expect(isProtocolVersion('2025-06-18')).toBe(true);
  });

  it('knows both eras, newest first, and tells them apart', () => {
    expect(KNOWN_PROTOCOL_VERSIONS).toEqual(['2026-07-28', ...LEGACY_PROTOCOL_VERSIONS, '2024-11-05']);
    expect(LATEST_MODERN_PROTOCOL_VERSION).toBe('2026-07-28');
    expect(isModernProtocolVersion('2026-07-28')).toBe(true);
    expect(isModernProtocolVersion('2025-11-25')).toBe(false);
    expect(isKnownProtocolVersion('2026-07-28')).toBe(true);
    expect(isKnownProtocolVersion('2024-10-07')).toBe(false);
    // 2024-11-05 is known (accepted in an initialize answer) but never proposed.
    expect(isKnownProtocolVersion('2024-11-05')).toBe(true);
    expect(isProtocolVersion('2024-11-05')).toBe(false);
    expect(eraOf('2024-11-05')).toBe('legacy');
    expect(featuresOf('2024-11-05')).toMatchObject({
      streamableHttp: false,
      batching: false,
      httpSessions: false,
    });
    expect(featuresOf('2025-03-26').streamableHttp).toBe(true);
    for (const version of LEGACY_PROTOCOL_VERSIONS) expect(eraOf(version)).toBe('legacy');
    for (const version of MODERN_PROTOCOL_VERSIONS) expect(eraOf(version)).toBe('modern');
  });

  it('names the modern differences as features, consistently with the era', () => {
    for (const version of KNOWN_PROTOCOL_VERSIONS) {
      const f = featuresOf(version);
      const modern = eraOf(version) === 'modern';
      expect(f.initializeHandshake).toBe(!modern);
      expect(f.serverDiscover).toBe(modern);
      expect(f.requestMeta).toBe(modern);
      expect(f.resultType).toBe(modern);
      expect(f.serverRequests).toBe(!modern);
      expect(f.subscriptionsListen).toBe(modern);
      expect(f.cacheHints).toBe(modern);
      expect(f.resourceNotFoundCode).toBe(modern ? -32602 : -32002);
    }
  });
});
