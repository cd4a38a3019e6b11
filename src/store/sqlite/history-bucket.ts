import { packPayload, unpackPayload } from './payload-text.ts';
import { ByteReader, ByteWriter } from './varint.ts';

/**
 * The longest time a bucket spans (its last point minus its first). A message's points are
 * normally at one time; one that spans longer (a vehicle's backlog) is split into several
 * buckets. A history page starts at the buckets whose last point is below its bound plus this
 * span, so the span bounds how many extra index entries a page looks at; retention rewrites
 * only buckets whose last point is within this span of the cutoff.
 */
export const BUCKET_SPAN_MS = 60_000;

/** One point as a bucket holds it: the item's interned id, its time, its payload JSON text. */
export interface BucketPoint {
  itemId: number;
  timestampMs: number;
  payloadJson: string;
}

/** A point to encode: its payload already packed (./payload-text.ts). */
export interface PackedPoint {
  itemId: number;
  timestampMs: number;
  packed: Buffer;
}

/**
 * The body of one history bucket (one VIN, one message's provenance, at most a bucket span of
 * time): the points in timestamp order, each as varint item id, varint offset from the bucket's
 * first time, and the length-prefixed payload text (./payload-text.ts). A reader looking for
 * one item walks the small headers and decodes only that item's payloads.
 */
export function encodeBucket(points: PackedPoint[], minTs: number): Buffer {
  const w = new ByteWriter();
  w.uint(points.length);
  for (const p of points) {
    w.uint(p.itemId);
    w.uint(p.timestampMs - minTs);
    w.bytes(p.packed);
  }
  return w.done();
}

export const packPoint = (p: BucketPoint): PackedPoint => ({ itemId: p.itemId, timestampMs: p.timestampMs, packed: packPayload(p.payloadJson, p.timestampMs) });

/** Every point of a bucket, or only those of one item. */
export function decodeBucket(body: Buffer, minTs: number, onlyItemId?: number): BucketPoint[] {
  const r = new ByteReader(body);
  const n = r.uint();
  const out: BucketPoint[] = [];
  for (let i = 0; i < n; i++) {
    const itemId = r.uint();
    const timestampMs = minTs + r.uint();
    const [start, end] = r.span();
    if (onlyItemId !== undefined && itemId !== onlyItemId) continue;
    out.push({ itemId, timestampMs, payloadJson: unpackPayload(body, start, end, timestampMs) });
  }
  return out;
}

/** The (item, time) keys of a bucket, for the dedup check, without decoding any payload. */
export function bucketKeys(body: Buffer, minTs: number, into: Set<string>): void {
  const r = new ByteReader(body);
  const n = r.uint();
  for (let i = 0; i < n; i++) {
    const itemId = r.uint();
    const timestampMs = minTs + r.uint();
    r.span();
    into.add(`${itemId}:${timestampMs}`);
  }
}
