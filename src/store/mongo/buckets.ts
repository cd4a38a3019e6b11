import type { DataPoint } from '../contract.ts';
import { BSON_MAX_BYTES, fieldSize } from './bson-size.ts';

/**
 * History buckets: one document per VIN and minute of data time (the points' own timestamps),
 * with a deterministic `_id` `${vin}|${start}|${seq}`.
 *
 *   { _id, vin, start, seq, items: [item, ...], n, bytes, closed?,
 *     p: { <item field>: { <timestampMs>: { j: payload JSON, m: manufacturer, v: mappingVersion, r: receivedAt } } } }
 *
 * Why this layout (docs/operations.md "MongoDB" has the long form):
 * - A point's bucket is a function of (vin, item, timestampMs) alone, so a point seen again
 *   always meets its first copy in the same document, and "first wins" is one atomic document
 *   update ($mergeObjects with the stored map last). That is what a unique index did per point.
 *   Time-series collections cannot give it: no unique index, and updates only on the metaField.
 * - A telemetry message (its items share a time) is one bucket update: one write, not thirty.
 * - A minute: a vehicle sending 30 items every 5 s fills a bucket of about 360 points (40 KB),
 *   close to time-series collections' own bucket limits (1,000 measurements, 125 KB). Small
 *   buckets keep a sparse item's page cheap (each bucket found is read whole by the server) and
 *   leave a bucket dirty for about one checkpoint, so it reaches the disk about once.
 * - `items` lists the items a bucket holds: the index (vin, items, start) finds a sparse item's
 *   buckets without reading the vehicle's other history.
 * - Provenance is kept per point (an item's points in one minute can come from different messages).
 * - A bucket closes before 16 MiB: see {@link BUCKET_TARGET_BYTES} and {@link bucketFits}.
 */

/** The time span of one bucket. */
export const BUCKET_SPAN_MS = 60_000;

/**
 * A bucket takes no more points once a write would take it past this many bytes of points (it
 * closes, and a bucket with the next `seq` opens). Reached only by an unusually dense vehicle or
 * large payloads; far below 16 MiB so that a bucket is never rewritten at megabytes per message.
 */
export const BUCKET_TARGET_BYTES = 1024 * 1024;

/** Room kept for a bucket's other fields (_id, vin, start, seq, n, bytes, closed, field names). */
export const BUCKET_HEADER_ALLOWANCE = 16 * 1024;

/** The most bytes of points one bucket can hold: what a single write to an empty bucket may carry. */
export const BUCKET_MAX_POINT_BYTES = BSON_MAX_BYTES - BUCKET_HEADER_ALLOWANCE;

/** A stored point inside a bucket (and the latest value's, with its time `t`). */
export interface PointEntry {
  j: string;
  m: string;
  v: string;
  r: string;
}

export interface BucketKey {
  _id: string;
  vin: string;
  start: number;
  seq: number;
}

export interface BucketDoc extends BucketKey {
  items: string[];
  p: Record<string, Record<string, PointEntry>>;
  n: number;
  bytes: number;
  closed?: true;
}

/** What a write reads back of a bucket before its update (projected to the points it carries). */
export type BucketBefore = Partial<Pick<BucketDoc, 'items' | 'bytes' | 'closed' | 'p'>> | null;

export class PointTooLargeError extends RangeError {
  constructor(bytes: number) {
    super(`a data point of ${bytes} bytes does not fit in one MongoDB document (at most ${BUCKET_MAX_POINT_BYTES})`);
  }
}

/** The start of the window a time falls in. */
export const windowStart = (timestampMs: number): number => Math.floor(timestampMs / BUCKET_SPAN_MS) * BUCKET_SPAN_MS;

export function bucketKey(vin: string, start: number, seq: number): BucketKey {
  return { _id: `${vin}|${start}|${seq}`, vin, start, seq };
}

/**
 * An item's name as a field name: catalog names are letters, digits, `_` and `-`; anything else
 * (a `.` would make a path, a leading `$` an operator) is written `~` and four hex digits.
 */
export function itemField(item: string): string {
  return item === '' ? '~' : item.replace(/[^A-Za-z0-9_-]/g, (c) => `~${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A timestamp as a field name; it must be an integer (a `.` would make a path). */
export function timeField(timestampMs: number): string {
  if (!Number.isSafeInteger(timestampMs)) throw new RangeError(`a data point's timestampMs must be an integer, got ${timestampMs}`);
  return String(timestampMs);
}

export const entryOf = (p: DataPoint): PointEntry => ({ j: JSON.stringify(p.payload), m: p.manufacturer, v: p.mappingVersion, r: p.receivedAt });

export const pointOf = (vin: string, item: string, timestampMs: number, e: PointEntry): DataPoint => ({
  vin,
  item,
  timestampMs,
  payload: JSON.parse(e.j) as Record<string, unknown>,
  manufacturer: e.m,
  mappingVersion: e.v,
  receivedAt: e.r,
});

/** One point as a bucket write carries it: its field names, its entry and its size in the bucket. */
export interface PlannedPoint {
  point: DataPoint;
  field: string;
  time: string;
  entry: PointEntry;
  bytes: number;
}

const overheads = new Map<string, number>();

/** What an item adds to a bucket the first time: its map's frame and name, and its name in `items`. */
export function itemOverhead(item: string): number {
  let size = overheads.get(item);
  if (size === undefined) {
    // The array index of `items` is a field name too ("0", "1", ...): 8 bytes cover any count.
    size = fieldSize(itemField(item), {}) + fieldSize('0', item) + 8;
    // Catalog item names: a few hundred at most; a cap keeps odd names from growing it for ever.
    if (overheads.size < 10_000) overheads.set(item, size);
  }
  return size;
}

export function plan(point: DataPoint): PlannedPoint {
  const entry = entryOf(point);
  const time = timeField(point.timestampMs);
  return { point, field: itemField(point.item), time, entry, bytes: fieldSize(time, entry) };
}

/** The points one bucket write carries: all of one (vin, window), at most BUCKET_TARGET_BYTES. */
export interface BucketChunk {
  vin: string;
  start: number;
  points: PlannedPoint[];
}

/** The bytes a chunk adds to a bucket holding none of its points and none of its items. */
export function chunkBytes(points: PlannedPoint[]): number {
  const items = new Set(points.map((p) => p.point.item));
  return points.reduce((sum, p) => sum + p.bytes, 0) + [...items].reduce((sum, i) => sum + itemOverhead(i), 0);
}

/**
 * Groups a batch's points (already one per (vin, item, timestampMs)) by bucket window, in the
 * order they came, and cuts each group into chunks of at most BUCKET_TARGET_BYTES, so that a
 * write never carries more than a bucket may take. A point too large for a document of its own
 * is refused with a PointTooLargeError.
 */
export function chunkPoints(points: DataPoint[]): BucketChunk[] {
  const open = new Map<string, { chunk: BucketChunk; bytes: number; items: Set<string> }>();
  const chunks: BucketChunk[] = [];
  for (const point of points) {
    const planned = plan(point);
    const alone = planned.bytes + itemOverhead(point.item);
    if (alone > BUCKET_MAX_POINT_BYTES) throw new PointTooLargeError(alone);
    const start = windowStart(point.timestampMs);
    const key = `${point.vin}\u0000${start}`;
    const current = open.get(key);
    // Counted as chunkBytes counts: each point, and each item once.
    const adds = planned.bytes + (current?.items.has(point.item) ? 0 : itemOverhead(point.item));
    if (current && current.bytes + adds <= BUCKET_TARGET_BYTES) {
      current.chunk.points.push(planned);
      current.bytes += adds;
      current.items.add(point.item);
    } else {
      const chunk: BucketChunk = { vin: point.vin, start, points: [planned] };
      open.set(key, { chunk, bytes: alone, items: new Set([point.item]) });
      chunks.push(chunk);
    }
  }
  return chunks;
}

/**
 * The bytes a write adds to a bucket in the state `before`: the points it does not hold yet, and
 * the frames of the items it does not hold yet. The update pipeline ({@link bucketUpdate})
 * computes the same sum on the server from the same numbers.
 */
export function addedBytes(before: BucketBefore, points: PlannedPoint[]): number {
  const held = new Set(before?.items ?? []);
  const newItems = new Set<string>();
  let sum = 0;
  for (const p of points) {
    if (before?.p?.[p.field]?.[p.time] !== undefined) continue;
    sum += p.bytes;
    if (!held.has(p.point.item)) newItems.add(p.point.item);
  }
  for (const item of newItems) sum += itemOverhead(item);
  return sum;
}

/**
 * Whether a bucket takes a write: not closed, and either the write adds nothing, or the bucket is
 * empty (a new bucket takes any chunk: chunks are at most BUCKET_MAX_POINT_BYTES), or the bucket
 * stays within BUCKET_TARGET_BYTES. A bucket that does not take a write is closed by it for good,
 * so a bucket's points never change once a later `seq` exists: the writer then looks for its
 * points there (they were stored before the close) and writes the others to the next bucket.
 * So a bucket never holds more than BUCKET_MAX_POINT_BYTES of points, under 16 MiB with its header.
 */
export function bucketFits(bytesBefore: number, closed: boolean, added: number): boolean {
  return !closed && (added === 0 || bytesBefore === 0 || bytesBefore + added <= BUCKET_TARGET_BYTES);
}

/**
 * A write's outcome read from the bucket as it was before: the points it stored, the first
 * copies it found of the others (what the bucket holds for them, which may differ from what this
 * write carried), and the points for the next bucket.
 */
export function outcomeOf(before: BucketBefore, points: PlannedPoint[]): { stored: PlannedPoint[]; found: DataPoint[]; rest: PlannedPoint[] } {
  const missing: PlannedPoint[] = [];
  const found: DataPoint[] = [];
  for (const p of points) {
    const held = before?.p?.[p.field]?.[p.time];
    if (held === undefined) missing.push(p);
    else found.push(pointOf(p.point.vin, p.point.item, p.point.timestampMs, held));
  }
  if (before === null) return { stored: missing, found, rest: [] };
  const fits = bucketFits(before.bytes ?? 0, before.closed === true, addedBytes(before, points));
  return fits ? { stored: missing, found, rest: [] } : { stored: [], found, rest: missing };
}

/** The projection that reads, before a write, what {@link outcomeOf} needs: state, items and the points written. */
export function beforeProjection(points: PlannedPoint[]): Record<string, 1> {
  const projection: Record<string, 1> = { _id: 1, items: 1, bytes: 1, closed: 1 };
  for (const p of points) projection[`p.${p.field}.${p.time}`] = 1;
  return projection;
}

/**
 * The update pipeline of one bucket write (an upsert of the bucket `key`). Per point, the stored
 * copy wins ($mergeObjects puts the stored map last): a point seen again changes nothing.
 * Stage 1 sums what the write adds (the points and items the bucket lacks); stage 2 decides,
 * as {@link bucketFits} does, whether the bucket takes it; stage 3 adds the points, items, count
 * and bytes, or closes the bucket. Every value from the message is a $literal: a payload or a
 * version starting with `$` is data, never a field path.
 */
export function bucketUpdate(key: BucketKey, points: PlannedPoint[]): object[] {
  const lit = (v: unknown) => ({ $literal: v });
  const missing = (p: PlannedPoint) => ({ $eq: [{ $type: `$p.${p.field}.${p.time}` }, 'missing'] });
  const items = [...new Set(points.map((p) => p.point.item))];
  const heldItems = { $ifNull: ['$items', []] };
  const byField = new Map<string, Record<string, PointEntry>>();
  for (const p of points) byField.set(p.field, { ...byField.get(p.field), [p.time]: p.entry });
  const itemsAdded = items.map((item) => ({
    $cond: [{ $and: [{ $not: [{ $in: [lit(item), heldItems] }] }, { $or: points.filter((p) => p.point.item === item).map(missing) }] }, itemOverhead(item), 0],
  }));
  const bytesBefore = { $ifNull: ['$bytes', 0] };
  const fits = {
    $and: [{ $ne: ['$closed', true] }, { $or: [{ $eq: ['$_add', 0] }, { $eq: [bytesBefore, 0] }, { $lte: [{ $add: [bytesBefore, '$_add'] }, BUCKET_TARGET_BYTES] }] }],
  };
  const taken = (then: unknown, otherwise: unknown) => ({ $cond: ['$_fits', then, otherwise] });
  const pointFields = Object.fromEntries(
    [...byField].map(([field, map]) => [`p.${field}`, taken({ $mergeObjects: [lit(map), { $ifNull: [`$p.${field}`, {}] }] }, `$p.${field}`)]),
  );
  return [
    {
      $set: {
        _add: { $add: [...points.map((p) => ({ $cond: [missing(p), p.bytes, 0] })), ...itemsAdded] },
        _new: { $add: points.map((p) => ({ $cond: [missing(p), 1, 0] })) },
      },
    },
    { $set: { _fits: fits } },
    {
      $set: {
        vin: lit(key.vin),
        start: lit(key.start),
        seq: lit(key.seq),
        ...pointFields,
        // New items appended in the order they came, so a write that adds none leaves `items` as it was.
        items: taken({ $concatArrays: [heldItems, { $filter: { input: lit(items), cond: { $not: [{ $in: ['$$this', heldItems] }] } } }] }, '$items'),
        n: taken({ $add: [{ $ifNull: ['$n', 0] }, '$_new'] }, '$n'),
        bytes: taken({ $add: [bytesBefore, '$_add'] }, '$bytes'),
        // A bucket that takes the write was not closed: it stays without the field.
        closed: taken('$$REMOVE', true),
      },
    },
    { $unset: ['_add', '_new', '_fits'] },
  ];
}

/**
 * The same write applied to a bucket in memory, as the pipeline applies it on the server: the
 * model the tests check the 16 MiB guard and the outcomes against (no server runs here).
 */
export function applyInMemory(doc: BucketDoc | null, key: BucketKey, points: PlannedPoint[]): BucketDoc {
  const before: BucketDoc = doc ?? { ...key, items: [], p: {}, n: 0, bytes: 0 };
  const added = addedBytes(before, points);
  if (!bucketFits(before.bytes, before.closed === true, added)) return { ...before, closed: true };
  const next: BucketDoc = { ...before, items: [...before.items], p: { ...before.p }, n: before.n, bytes: before.bytes + added };
  for (const pt of points) {
    const map = { ...next.p[pt.field] };
    if (map[pt.time] === undefined) {
      map[pt.time] = pt.entry;
      next.n += 1;
      if (!next.items.includes(pt.point.item)) next.items.push(pt.point.item);
    }
    next.p[pt.field] = map;
  }
  return next;
}
