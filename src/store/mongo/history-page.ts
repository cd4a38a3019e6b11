import type { DataPoint, HistoryPage } from '../contract.ts';
import { encodeHistoryCursor } from '../history-cursor.ts';
import { pointOf, type PointEntry } from './buckets.ts';

/** A bucket as a history page reads it: its minute and the one item's points. */
export interface PageBucket {
  start: number;
  p?: Record<string, Record<string, PointEntry>>;
}

/**
 * Gathers a history page from buckets read newest minute first. A minute's buckets (several
 * `seq`) are taken whole before the page may end, since their points interleave in time; once
 * more than `limit` points are gathered and an older minute comes, the page is complete (the
 * extra point tells that another page follows). Points are kept only in [from, below).
 */
export class HistoryPageBuilder {
  private readonly points: DataPoint[] = [];
  private minute: number | null = null;

  constructor(
    private readonly q: { vin: string; item: string; field: string; below: number; from?: number; limit: number },
  ) {}

  /** Adds a bucket; false when the page was complete before it (stop reading). */
  add(bucket: PageBucket): boolean {
    if (this.minute !== null && bucket.start < this.minute && this.points.length > this.q.limit) return false;
    this.minute = bucket.start;
    for (const [time, entry] of Object.entries(bucket.p?.[this.q.field] ?? {})) {
      const ts = Number(time);
      if (ts < this.q.below && (this.q.from === undefined || ts >= this.q.from)) this.points.push(pointOf(this.q.vin, this.q.item, ts, entry));
    }
    return true;
  }

  page(): HistoryPage {
    const sorted = [...this.points].sort((a, b) => b.timestampMs - a.timestampMs);
    const items = sorted.slice(0, this.q.limit);
    const last = items.at(-1);
    return { items, nextCursor: sorted.length > this.q.limit && last ? encodeHistoryCursor(last.timestampMs) : null };
  }
}
