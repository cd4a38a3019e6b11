import type Database from 'better-sqlite3';
import type { DataPoint } from '../contract.ts';
import { fromJson } from './json-column.ts';
import { BUCKET_SPAN_MS, decodeBucket } from './history-bucket.ts';
import { LAYERS, forLayer, type BucketLayer } from './bucket-indexes.ts';

const MAX_MS = Number.MAX_SAFE_INTEGER;

interface Entry {
  id: number;
  max_ts: number;
  min_ts: number;
  n_points: number;
}

interface BucketBody {
  id: number;
  min_ts: number;
  body: Buffer | string;
  manufacturer: string;
  mapping_version: string;
  received_at: string;
}

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

/**
 * A layer's index entries only (the index covers them): newest last point first, in keyset order.
 *
 * Every parameter is written `+?`. SQLite (3.54, in better-sqlite3 13) marks a bare parameter
 * compared with an indexed column of an ORDER BY query, or bound to LIMIT, as one the plan may
 * depend on, and then prepares the statement again at every run: about 10 µs each time, a third
 * of a sparse item's page. The unary plus leaves the value as it is and the index in use, and
 * the statement is planned once.
 */
function prepareEntries(db: Database.Database, layer: BucketLayer) {
  return {
    first: db.prepare<[string, number, number, number, number], Entry>(
      forLayer(
        `SELECT id, max_ts, min_ts, n_points FROM history_buckets
         WHERE {layer} AND vin = +? AND shape_id = +? AND max_ts >= +? AND max_ts < +?
         ORDER BY max_ts DESC, min_ts DESC, n_points DESC, id DESC LIMIT +?`,
        layer,
      ),
    ),
    next: db.prepare<[string, number, number, number, number, number, number, number], Entry>(
      forLayer(
        `SELECT id, max_ts, min_ts, n_points FROM history_buckets
         WHERE {layer} AND vin = +? AND shape_id = +? AND max_ts >= +? AND (max_ts, min_ts, n_points, id) < (+?, +?, +?, +?)
         ORDER BY max_ts DESC, min_ts DESC, n_points DESC, id DESC LIMIT +?`,
        layer,
      ),
    ),
  };
}

function prepare(db: Database.Database) {
  return {
    layers: LAYERS.map((l) => prepareEntries(db, l)),
    // Several buckets in one statement: cheaper than one statement per bucket.
    bodies: db.prepare<[string], BucketBody>(
      'SELECT id, min_ts, body, manufacturer, mapping_version, received_at FROM history_buckets WHERE id IN (SELECT value FROM json_each(?))',
    ),
  };
}

/** One shape's buckets of the VIN in one layer, newest last point first, read from its index in chunks. */
class ShapeEntries {
  private rows: Entry[] = [];
  private pos = 0;
  private done = false;
  private last: Entry | undefined;

  constructor(
    private readonly st: ReturnType<typeof prepareEntries>,
    private readonly vin: string,
    private readonly shape: number,
    private readonly fromMs: number,
    private readonly startBelow: number,
    private readonly chunk: number,
  ) {}

  head(): Entry | undefined {
    if (this.pos < this.rows.length) return this.rows[this.pos];
    if (this.done) return undefined;
    const l = this.last;
    this.rows = l
      ? this.st.next.all(this.vin, this.shape, this.fromMs, l.max_ts, l.min_ts, l.n_points, l.id, this.chunk)
      : this.st.first.all(this.vin, this.shape, this.fromMs, this.startBelow, this.chunk);
    this.pos = 0;
    if (this.rows.length < this.chunk) this.done = true;
    return this.rows[0];
  }

  take(): Entry {
    const e = this.rows[this.pos++]!;
    this.last = e;
    return e;
  }

  /** Ids of up to n entries from the one just taken on (those that may hold points below `below`). */
  upcoming(n: number, below: number): number[] {
    const ids: number[] = [];
    for (let i = this.pos - 1; i < this.rows.length && ids.length < n; i++) if (this.rows[i]!.min_ts < below) ids.push(this.rows[i]!.id);
    return ids;
  }
}

/**
 * The newest `want` points of one item of one VIN with fromMs <= time < belowMs, newest first.
 *
 * Only the buckets whose shape holds the item are looked at (`shapes`), so a sparse item costs
 * as many bucket reads as it has points, and a dense one about as many as the page has points.
 * Buckets are taken in descending order of their last point, merged across shapes and the two
 * index layers (./bucket-indexes.ts); a point is final once the next bucket's last point is
 * older than it. The first buckets looked at are
 * those whose last point is below belowMs + the bucket span (no earlier one can hold a point
 * below belowMs); those starting at or after belowMs are skipped from the index alone.
 */
export function readHistoryPage(
  db: Database.Database,
  q: { vin: string; item: string; itemId: number; shapes: number[]; fromMs: number; belowMs: number; want: number },
): DataPoint[] {
  let st = statements.get(db);
  if (!st) statements.set(db, (st = prepare(db)));
  const startBelow = q.belowMs >= MAX_MS - BUCKET_SPAN_MS ? MAX_MS : q.belowMs + BUCKET_SPAN_MS;
  const chunk = Math.min(q.want + 16, 1024);
  const cursors = q.shapes.flatMap((s) => st.layers.map((layer) => new ShapeEntries(layer, q.vin, s, q.fromMs, startBelow, chunk)));
  const out: DataPoint[] = [];
  const bodies = new Map<number, BucketBody>();
  let pending: DataPoint[] = [];
  const release = (olderThanOrEqual: number) => {
    // Points newer than every bucket not read yet are final.
    const ready = pending.filter((p) => p.timestampMs > olderThanOrEqual).sort((a, b) => b.timestampMs - a.timestampMs);
    if (ready.length === 0) return;
    pending = pending.filter((p) => p.timestampMs <= olderThanOrEqual);
    out.push(...ready);
  };
  for (;;) {
    let best: ShapeEntries | undefined;
    let bestHead: { max_ts: number } | undefined;
    for (const c of cursors) {
      const h = c.head();
      if (h && (!bestHead || h.max_ts > bestHead.max_ts)) {
        best = c;
        bestHead = h;
      }
    }
    if (!best || !bestHead) break;
    release(bestHead.max_ts);
    if (out.length >= q.want) break;
    const e = best.take();
    if (e.min_ts >= q.belowMs) continue;
    let b = bodies.get(e.id);
    if (!b) {
      // Every bucket of these shapes holds the item, so no more buckets than points still
      // wanted are read ahead: none read for nothing (which matters with the file not cached).
      const need = Math.max(1, q.want - out.length - pending.length);
      for (const r of st.bodies.all(JSON.stringify(best.upcoming(need, q.belowMs)))) bodies.set(r.id, r);
      b = bodies.get(e.id)!;
    }
    for (const p of decodeBucket(b.body, b.min_ts, q.itemId)) {
      if (p.timestampMs < q.fromMs || p.timestampMs >= q.belowMs) continue;
      pending.push({
        vin: q.vin,
        item: q.item,
        timestampMs: p.timestampMs,
        payload: fromJson<Record<string, unknown>>(p.payloadJson, 'history_buckets.body'),
        manufacturer: b.manufacturer,
        mappingVersion: b.mapping_version,
        receivedAt: b.received_at,
      });
    }
  }
  release(-Infinity);
  return out.slice(0, q.want);
}
