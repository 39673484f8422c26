// Per-version shaping (protocol/shaping.ts): fields a revision lacks go, whether they came later or were dropped.

import {
  createEntryShaper,
  livesIn,
  shapeFields,
  TOOL_FIELDS,
  type FieldLives,
} from '../../../lib/core/protocol/shaping';

const LIVES: FieldLives = {
  added: { since: '2025-06-18' },
  dropped: { until: '2025-11-25' },
  between: { since: '2025-03-26', until: '2025-11-25' },
};
const ENTRY = Object.freeze({ name: 'x', added: 1, dropped: 2, between: 3 });

describe('shaping', () => {
  it.each<[string, string[]]>([
    ['2024-11-05', ['name', 'dropped']],
    ['2025-03-26', ['name', 'dropped', 'between']],
    ['2025-06-18', ['name', 'added', 'dropped', 'between']],
    ['2025-11-25', ['name', 'added']],
    ['2026-07-28', ['name', 'added']],
  ])('on %s keeps %p', (version, kept) => {
    expect(Object.keys(shapeFields(ENTRY, LIVES, version as never))).toEqual(kept);
  });

  it('returns the entry itself when nothing goes, and never changes it', () => {
    expect(shapeFields(ENTRY, { added: { since: '2024-11-05' } }, '2025-11-25')).toBe(ENTRY);
    expect(ENTRY).toEqual({ name: 'x', added: 1, dropped: 2, between: 3 });
  });

  it('a field lives from since up to, not including, until', () => {
    expect(livesIn({ since: '2025-06-18', until: '2026-07-28' }, '2025-06-18')).toBe(true);
    expect(livesIn({ since: '2025-06-18', until: '2026-07-28' }, '2026-07-28')).toBe(false);
    expect(livesIn({}, '2024-11-05')).toBe(true);
    // MCP 2026-07-28 moved tasks to an extension: the tool's execution field is gone there.
    expect(livesIn(TOOL_FIELDS.execution!, '2025-11-25')).toBe(true);
    expect(livesIn(TOOL_FIELDS.execution!, '2026-07-28')).toBe(false);
  });

  it('caches one shaped copy per entry and revision', () => {
    const shape = createEntryShaper();
    const first = shape(ENTRY, LIVES, '2025-03-26');
    expect(shape(ENTRY, LIVES, '2025-03-26')).toBe(first);
    expect(shape(ENTRY, LIVES, '2025-06-18')).not.toBe(first);
  });
});
