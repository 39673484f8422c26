// lib/core/versions.ts: the one place that lists protocol revisions by era and compares them.

import {
  ASSUMED_PROTOCOL_VERSION,
  LAST_VERSION_WITH_BATCHES,
  LATEST_PROTOCOL_VERSION_2025,
  PROTOCOL_VERSIONS_2025,
  VERSIONS_BY_ERA,
  eraOf,
  isAtLeast,
  isVersion2025,
  negotiateVersion,
} from '../../lib/core/versions';

describe('protocol versions by era', () => {
  it('lists the 2025 era newest first, and every supported revision belongs to one era', () => {
    expect(VERSIONS_BY_ERA['2025']).toEqual(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(PROTOCOL_VERSIONS_2025.map(eraOf)).toEqual(['2025', '2025', '2025', '2025']);
    expect([...PROTOCOL_VERSIONS_2025].sort().reverse()).toEqual([...PROTOCOL_VERSIONS_2025]);
    expect(LATEST_PROTOCOL_VERSION_2025).toBe('2025-11-25');
    expect([ASSUMED_PROTOCOL_VERSION, LAST_VERSION_WITH_BATCHES]).toEqual(['2025-03-26', '2025-03-26']);
  });

  it('negotiates the asked revision when spoken, else the newest; never an error', () => {
    expect(negotiateVersion('2024-11-05')).toBe('2024-11-05');
    for (const asked of ['2026-07-28', '1999-01-01', '', 42, null, undefined, { v: 1 }])
      expect(negotiateVersion(asked)).toBe('2025-11-25');
    expect(isVersion2025('2025-06-18')).toBe(true);
    expect(isVersion2025('2025-06-18 ')).toBe(false);
  });

  it('compares revisions in time order', () => {
    expect(isAtLeast('2025-11-25', '2025-06-18')).toBe(true);
    expect(isAtLeast('2025-06-18', '2025-06-18')).toBe(true);
    expect(isAtLeast('2025-03-26', '2025-06-18')).toBe(false);
  });
});
