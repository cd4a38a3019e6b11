import { fieldSize } from './bson-size.ts';
import { itemField, itemOverhead, type BucketDoc, type PointEntry } from './buckets.ts';

/** What is left of a bucket once retention removed its points older than the cutoff. */
export interface TrimmedBucket {
  p: BucketDoc['p'];
  items: string[];
  n: number;
  bytes: number;
  /** How many points were removed. */
  removed: number;
}

/**
 * Retention on the one bucket per VIN whose minute holds the cutoff: keeps the points at or after
 * it and counts `n` and `bytes` again the way writes count them (src/store/mongo/buckets.ts), so
 * the bucket's size guard stays right. An empty result means the bucket goes entirely.
 */
export function trimBucket(doc: Pick<BucketDoc, 'p' | 'items'>, cutoffMs: number): TrimmedBucket {
  const p: BucketDoc['p'] = {};
  const items: string[] = [];
  let n = 0;
  let removed = 0;
  let bytes = 0;
  for (const item of doc.items) {
    const field = itemField(item);
    const kept: Record<string, PointEntry> = {};
    for (const [time, entry] of Object.entries(doc.p[field] ?? {})) {
      if (Number(time) < cutoffMs) {
        removed++;
        continue;
      }
      kept[time] = entry;
      n++;
      bytes += fieldSize(time, entry);
    }
    if (Object.keys(kept).length === 0) continue;
    p[field] = kept;
    items.push(item);
    bytes += itemOverhead(item);
  }
  return { p, items, n, bytes, removed };
}
