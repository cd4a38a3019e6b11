import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { afterLatestPosition, afterPosition, COPY_INDEX, legacyPointOf, type CopyPosition } from '../../src/store/mongo/legacy-points.ts';

// The MongoDB migration copies schema 1 in batches along an index and saves its position after
// each, so a run stopped anywhere resumes where it was. No server runs here: the position filters
// are evaluated by a small matcher for exactly the operators they use (equality, $gt, $or) on
// documents sorted as the index sorts them, and the resumed walk must visit every point once.

type Doc = Record<string, unknown>;
const cmp = (a: unknown, b: unknown): number => {
  const x = a instanceof ObjectId ? a.toHexString() : (a as string | number);
  const y = b instanceof ObjectId ? b.toHexString() : (b as string | number);
  return x < y ? -1 : x > y ? 1 : 0;
};
function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([k, v]) => {
    if (k === '$or') return (v as Doc[]).some((f) => matches(doc, f));
    if (v !== null && typeof v === 'object' && !(v instanceof ObjectId) && '$gt' in (v as Doc)) return cmp(doc[k], (v as Doc)['$gt']) > 0;
    return cmp(doc[k], v) === 0;
  });
}
const sortBy = (fields: string[]) => (a: Doc, b: Doc) => fields.reduce((r, f) => r || cmp(a[f], b[f]), 0);

describe('MongoDB migration: batches along an index, resumed from a saved position', () => {
  // Three vehicles, 30 items sharing each timestamp (as a message's do), ties everywhere.
  const docs: Doc[] = [];
  for (const vin of ['V3', 'V1', 'V2']) for (let t = 0; t < 7; t++) for (let i = 0; i < 30; i++) docs.push({ _id: new ObjectId(), vin, item: `item${i}`, timestampMs: 1000 + t });

  it('visits every point once, batch after batch, whatever the batch size and wherever the run stops', () => {
    const ordered = [...docs].sort(sortBy(Object.keys(COPY_INDEX.key)));
    for (const batch of [1, 7, 29, 30, 31, 100]) {
      const seen: Doc[] = [];
      let pos: CopyPosition | null = null;
      for (;;) {
        // A stop after any batch loses nothing but the batch in flight: pos is what was saved.
        const next = ordered.filter((d) => matches(d, afterPosition(pos) as Doc)).slice(0, batch);
        if (next.length === 0) break;
        seen.push(...next);
        const last = next.at(-1)!;
        pos = { vin: last['vin'] as string, timestampMs: last['timestampMs'] as number, _id: last['_id'] };
      }
      expect(seen).toEqual(ordered);
    }
  });

  it('walks schema 1’s latest values by (vin, item) the same way', () => {
    const latest = [...new Map(docs.map((d) => [`${d['vin']}|${d['item']}`, d])).values()].sort(sortBy(['vin', 'item']));
    const seen: Doc[] = [];
    let pos: { vin: string; item: string } | null = null;
    for (;;) {
      const next = latest.filter((d) => matches(d, afterLatestPosition(pos) as Doc)).slice(0, 13);
      if (next.length === 0) break;
      seen.push(...next);
      pos = { vin: next.at(-1)!['vin'] as string, item: next.at(-1)!['item'] as string };
    }
    expect(seen).toEqual(latest);
  });

  it('reads both of schema 1’s payload forms', () => {
    const base = { vin: 'V1', item: 'mileage', timestampMs: 1, manufacturer: 'virtual', mappingVersion: '1', receivedAt: 'T' };
    expect(legacyPointOf({ ...base, payloadJson: '{"value":1}' }).payload).toEqual({ value: 1 });
    expect(legacyPointOf({ ...base, payload: { value: 2 } }).payload).toEqual({ value: 2 });
  });
});
