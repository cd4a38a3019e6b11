import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../src/read-model/cache.ts';

describe('ReadCache', () => {
  it('serves an entry until it is maxAgeMs old, and not when the clock went backwards', () => {
    const c = new ReadCache<string>(10, 1000);
    c.set('s', 'k', 'v', c.mark(), 5000);
    expect(c.get('s', 'k', 5999)).toBe('v');
    expect(c.get('s', 'k', 4999)).toBeUndefined();
    c.set('s', 'k', 'v', c.mark(), 5000);
    expect(c.get('s', 'k', 6000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('drops a fill that raced with any invalidation', () => {
    const c = new ReadCache<string>(10, 1000);
    const mark = c.mark();
    c.delete('other', 'x'); // an invalidation while the filler read the store
    c.set('s', 'k', 'stale', mark, 0);
    expect(c.get('s', 'k', 0)).toBeUndefined();
    const later = c.mark();
    c.set('s', 'k', 'fresh', later, 0);
    expect(c.get('s', 'k', 0)).toBe('fresh');
    for (const invalidate of [() => c.deleteScope('x'), () => c.clear()]) {
      const m = c.mark();
      invalidate();
      c.set('s', 'k2', 'stale', m, 0);
      expect(c.get('s', 'k2', 0)).toBeUndefined();
    }
  });

  it('drops a whole scope and nothing else', () => {
    const c = new ReadCache<number>(10, 1000);
    c.set('sub1', 'a', 1, c.mark(), 0);
    c.set('sub1', 'b', 2, c.mark(), 0);
    c.set('sub2', 'a', 3, c.mark(), 0);
    c.deleteScope('sub1');
    expect([c.get('sub1', 'a', 0), c.get('sub1', 'b', 0), c.get('sub2', 'a', 0)]).toEqual([undefined, undefined, 3]);
    expect(c.size).toBe(1);
  });

  it('holds at most maxEntries, dropping the oldest first', () => {
    const c = new ReadCache<number>(3, 1000);
    for (let i = 0; i < 5; i++) c.set('s', `k${i}`, i, c.mark(), 0);
    expect(c.size).toBe(3);
    expect([0, 1, 2, 3, 4].map((i) => c.get('s', `k${i}`, 0))).toEqual([undefined, undefined, 2, 3, 4]);
    c.set('s', 'k4', 44, c.mark(), 0); // replacing an entry does not evict another
    expect(c.size).toBe(3);
    expect(c.get('s', 'k2', 0)).toBe(2);
  });
});
