// BoundedMap: the bound (oldest first, by write or by use), expiry on read, and no more than `max` entries.

import { BoundedMap } from '../../lib/core/bounded-map';

describe('BoundedMap', () => {
  it('keeps at most max entries, the least recently written going first', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1);
    map.set('b', 2);
    map.get('a');
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([undefined, 2, 3, 2]);
  });

  it('with refreshOnGet, evicts the least recently used instead', () => {
    const map = new BoundedMap<string, number>({ max: 2, refreshOnGet: true });
    map.set('a', 1);
    map.set('b', 2);
    map.get('a');
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3]);
  });

  it('a write of a held key makes it the youngest without growing', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.size]).toEqual([10, undefined, 2]);
  });

  it('drops an entry once its expiry is reached, when read', () => {
    let now = 1_000;
    const map = new BoundedMap<string, number>({ max: 10, now: () => now });
    map.set('a', 1, 1_500);
    expect(map.get('a')).toBe(1);
    now = 1_500;
    expect(map.get('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('forgets on delete', () => {
    const map = new BoundedMap<string, number>({ max: 1 });
    map.set('a', 1);
    expect([map.delete('a'), map.delete('a'), map.size]).toEqual([true, false, 0]);
  });

  it.each([false, true])('matches a plain model over many writes, reads and deletes (refreshOnGet %s)', (refresh) => {
    const map = new BoundedMap<number, number>({ max: 50, refreshOnGet: refresh });
    const model: number[] = []; // keys, oldest first
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    // Every step's disagreements with the model, checked once at the end: 20,000 steps of expect() took ~5 s.
    const mismatches: string[] = [];
    const check = (step: number, what: string, actual: unknown, expected: unknown): void => {
      if (actual !== expected)
        mismatches.push(`step ${step}: ${what} was ${String(actual)}, expected ${String(expected)}`);
    };
    for (let i = 0; i < 20_000; i++) {
      const key = random(120);
      const op = random(3);
      if (op === 0) {
        map.set(key, i);
        const at = model.indexOf(key);
        if (at >= 0) model.splice(at, 1);
        model.push(key);
        if (model.length > 50) model.shift();
      } else if (op === 1) {
        const held = model.includes(key);
        check(i, `get(${key}) !== undefined`, map.get(key) !== undefined, held);
        if (held && refresh) model.push(...model.splice(model.indexOf(key), 1));
      } else {
        check(i, `delete(${key})`, map.delete(key), model.includes(key));
        if (model.includes(key)) model.splice(model.indexOf(key), 1);
      }
      check(i, 'size', map.size, model.length);
    }
    expect(mismatches).toEqual([]);
  });
});
