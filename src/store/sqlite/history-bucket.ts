import { packPayload, unpackPayload, unpackPayloadBytes } from './payload-text.ts';
import { ByteReader } from './varint.ts';

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
  packed: string;
}

/**
 * The body of one history bucket (one VIN, one message's provenance, at most a bucket span of
 * time), as text: a header holding `;<item id>,<time - first time>,<payload end>` per point in
 * timestamp order (decimal; the end is the offset after the point's payload among the
 * payloads), a newline, then the packed payload texts one after another (./payload-text.ts).
 * A reader looking for one item finds `;<id>,` in the header and slices out only its payloads.
 * Text, not bytes: the SQLite driver hands a text column over as a string several times faster
 * than a blob as a Buffer, and a history page reads a whole bucket for each point of a dense
 * item. JSON text holds no raw newline, and the header only digits, commas and semicolons.
 */
export function encodeBucket(points: PackedPoint[], minTs: number): string {
  let head = '';
  let payloads = '';
  for (const p of points) {
    payloads += p.packed;
    // Times are whole milliseconds (Date.parse); a fraction would break the header, so it is
    // cut, as version 2's varints cut it.
    head += `;${p.itemId},${Math.floor(p.timestampMs - minTs)},${payloads.length}`;
  }
  return `${head}\n${payloads}`;
}

export const packPoint = (p: BucketPoint): PackedPoint => ({ itemId: p.itemId, timestampMs: p.timestampMs, packed: packPayload(p.payloadJson, p.timestampMs) });

// Where the last numberAt stopped: a module variable, so that reading a number allocates nothing.
let after = 0;

/** The decimal number at `pos`, ended by any non-digit; sets `after` to the position of that end. */
function numberAt(text: string, pos: number): number {
  let v = 0;
  let c = text.charCodeAt(pos);
  while (c >= 48 && c <= 57) {
    v = v * 10 + (c - 48);
    c = text.charCodeAt(++pos);
  }
  after = pos;
  return v;
}

/** Called per point of a bucket, in order: its item, its time, and its payload's span in the body. */
type EntryVisitor = (itemId: number, timestampMs: number, start: number, end: number) => void;

/** Walks a bucket's header, text or (schema version 2) bytes, without decoding any payload. */
function forEachEntry(body: string | Buffer, minTs: number, visit: EntryVisitor): void {
  if (typeof body !== 'string') {
    const r = new ByteReader(body);
    for (let i = r.uint(); i > 0; i--) {
      const itemId = r.uint();
      const timestampMs = minTs + r.uint();
      const [start, end] = r.span();
      visit(itemId, timestampMs, start, end);
    }
    return;
  }
  const base = body.indexOf('\n') + 1;
  let start = 0;
  for (let pos = 0; pos < base - 1; ) {
    const itemId = numberAt(body, pos + 1);
    const dt = numberAt(body, after + 1);
    const end = numberAt(body, after + 1);
    pos = after;
    visit(itemId, minTs + dt, base + start, base + end);
    start = end;
  }
}

const unpackAt = (body: string | Buffer, start: number, end: number, timestampMs: number): string =>
  typeof body === 'string' ? unpackPayload(body.slice(start, end), timestampMs) : unpackPayloadBytes(body, start, end, timestampMs);

/**
 * Every point of a bucket, or only those of one item. A body may also be bytes: buckets written
 * under schema version 2 (the points in varints, each payload after its header, ./varint.ts)
 * are read as they are. One item of a text body is found in the header by `;<id>,` alone.
 */
export function decodeBucket(body: string | Buffer, minTs: number, onlyItemId?: number): BucketPoint[] {
  const out: BucketPoint[] = [];
  if (typeof body !== 'string' || onlyItemId === undefined) {
    forEachEntry(body, minTs, (itemId, timestampMs, start, end) => {
      if (onlyItemId === undefined || itemId === onlyItemId) out.push({ itemId, timestampMs, payloadJson: unpackAt(body, start, end, timestampMs) });
    });
    return out;
  }
  const base = body.indexOf('\n') + 1;
  const needle = `;${onlyItemId},`;
  for (let at = body.indexOf(needle); at >= 0 && at < base; at = body.indexOf(needle, at + 1)) {
    const dt = numberAt(body, at + needle.length);
    const end = numberAt(body, after + 1);
    // The payload starts where the entry before it ends (its last number), or at 0.
    const start = at === 0 ? 0 : numberAt(body, body.lastIndexOf(',', at) + 1);
    out.push({ itemId: onlyItemId, timestampMs: minTs + dt, payloadJson: unpackAt(body, base + start, base + end, minTs + dt) });
  }
  return out;
}

/** The (item, time) keys of a bucket, for the dedup check, without decoding any payload. */
export function bucketKeys(body: string | Buffer, minTs: number, into: Set<string>): void {
  forEachEntry(body, minTs, (itemId, timestampMs) => into.add(`${itemId}:${timestampMs}`));
}
