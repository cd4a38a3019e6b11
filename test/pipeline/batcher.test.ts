import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../src/pipeline/batcher.ts';

/** Counted by message only (no byte limit). */
const unbounded = { maxBytes: Infinity, bytesOf: () => 1 };

describe('batcher', () => {
  it('sends a full batch at once and a partial one after the wait, resolving each add when its batch is sent', async () => {
    const sent: number[][] = [];
    const b = createBatcher<number>({ size: 3, maxWaitMs: 30, ...unbounded, send: async (items) => void sent.push(items) });
    const full = [b.add(1), b.add(2), b.add(3)];
    await Promise.all(full);
    expect(sent).toEqual([[1, 2, 3]]);
    const started = Date.now();
    await b.add(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(sent).toEqual([[1, 2, 3], [4]]);
  });

  it('rejects every add of a batch whose send failed, and keeps working afterwards', async () => {
    let fail = true;
    const sent: number[][] = [];
    const b = createBatcher<number>({
      size: 2,
      maxWaitMs: 5,
      ...unbounded,
      send: async (items) => {
        if (fail) throw new Error('redis down');
        sent.push(items);
      },
    });
    const results = await Promise.allSettled([b.add(1), b.add(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await Promise.all([b.add(3), b.add(4)]);
    expect(sent).toEqual([[3, 4]]);
  });

  it('sends addNow items at once in chunks, and flush waits for sends in flight', async () => {
    const sent: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = createBatcher<number>({ size: 2, maxWaitMs: 10_000, ...unbounded, send: async (items) => { await gate; sent.push(items); } });
    const now = b.addNow([1, 2, 3, 4, 5]);
    const waiting = b.add(6);
    const flushed = b.flush();
    release();
    await Promise.all([now, waiting, flushed]);
    expect(sent.sort()).toEqual([[1, 2], [3, 4], [5], [6]].sort());
  });

  it('sends a batch before its bytes would pass maxBytes, a larger item alone, and chunks addNow the same way', async () => {
    const sent: number[][] = [];
    // Each item weighs its own value.
    const b = createBatcher<number>({ size: 100, maxWaitMs: 10_000, maxBytes: 10, bytesOf: (n) => n, send: async (items) => void sent.push(items) });
    const added = [b.add(4), b.add(5), b.add(3), b.add(25), b.add(2)];
    await Promise.all(added.slice(0, 4));
    expect(sent).toEqual([[4, 5], [3], [25]]);
    await b.add(8);
    // 2 + 8 reaches the limit: sent without waiting.
    await added[4];
    expect(sent).toEqual([[4, 5], [3], [25], [2, 8]]);
    sent.length = 0;
    await b.addNow([6, 4, 1, 30, 9, 1, 1]);
    expect(sent).toEqual([[6, 4], [1], [30], [9, 1], [1]]);
  });
});
