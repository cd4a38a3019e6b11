import { unpackPayload, unpackPayloadBytes } from './payload-text.ts';
import { ByteReader, ByteWriter } from './varint.ts';

/**
 * One item's latest value in a vehicle's latest row. The payload stays packed
 * (./payload-text.ts): bytes of the row it was read from, or the text of a point being stored.
 */
export interface LatestEntry {
  timestampMs: number;
  manufacturer: string;
  mappingVersion: string;
  receivedAt: string;
  payload: Buffer | string;
}

/** The buffer every row is encoded in before it is copied out (one encoding at a time: synchronous). */
let scratch: Buffer = Buffer.allocUnsafe(4096);

/**
 * The latest values of one vehicle, one row: a string table (the provenance strings, which a
 * message's items share), then per item its id, time, provenance as string indexes and its
 * packed payload (./payload-text.ts). Storing a message rewrites this one row; delivery reads
 * one row per vehicle and decodes only the payloads it was asked for.
 */
export function encodeLatestRow(entries: Map<number, LatestEntry>): Buffer {
  const strings = new Map<string, number>();
  const ref = (s: string) => {
    let i = strings.get(s);
    if (i === undefined) strings.set(s, (i = strings.size));
    return i;
  };
  // The string table comes first, so the references are taken in a pass of their own.
  const refs: number[] = [];
  for (const e of entries.values()) refs.push(ref(e.manufacturer), ref(e.mappingVersion), ref(e.receivedAt));
  const w = new ByteWriter(scratch);
  w.uint(strings.size);
  for (const s of strings.keys()) w.text(s);
  w.uint(entries.size);
  let i = 0;
  for (const [itemId, e] of entries) {
    w.uint(itemId);
    w.int(e.timestampMs);
    w.uint(refs[i++]!);
    w.uint(refs[i++]!);
    w.uint(refs[i++]!);
    if (typeof e.payload === 'string') w.text(e.payload);
    else w.bytes(e.payload);
  }
  scratch = w.scratch;
  return w.done();
}

/** The row's entries, the payloads as slices of the row (no copy, no text decoding). */
export function decodeLatestRow(body: Buffer, wanted?: (itemId: number) => boolean): Map<number, LatestEntry> {
  const r = new ByteReader(body);
  const strings: string[] = [];
  for (let i = r.uint(); i > 0; i--) strings.push(r.text());
  const out = new Map<number, LatestEntry>();
  for (let i = r.uint(); i > 0; i--) {
    const itemId = r.uint();
    const timestampMs = r.int();
    const m = r.uint();
    const v = r.uint();
    const rec = r.uint();
    const [start, end] = r.span();
    if (wanted && !wanted(itemId)) continue;
    out.set(itemId, {
      timestampMs,
      manufacturer: strings[m]!,
      mappingVersion: strings[v]!,
      receivedAt: strings[rec]!,
      payload: body.subarray(start, end),
    });
  }
  return out;
}

export const latestEntry = (p: { timestampMs: number; manufacturer: string; mappingVersion: string; receivedAt: string }, packed: string): LatestEntry => ({
  timestampMs: p.timestampMs,
  manufacturer: p.manufacturer,
  mappingVersion: p.mappingVersion,
  receivedAt: p.receivedAt,
  payload: packed,
});

export const latestPayloadJson = (e: LatestEntry): string =>
  typeof e.payload === 'string' ? unpackPayload(e.payload, e.timestampMs) : unpackPayloadBytes(e.payload, 0, e.payload.length, e.timestampMs);

/** The vehicle's manufacturer and last reception as the fleet report reads them: the greatest over its items. */
export function latestSummary(entries: Map<number, LatestEntry>): [manufacturer: string, receivedAt: string] {
  let manufacturer = '';
  let receivedAt = '';
  for (const e of entries.values()) {
    if (e.manufacturer > manufacturer) manufacturer = e.manufacturer;
    if (e.receivedAt > receivedAt) receivedAt = e.receivedAt;
  }
  return [manufacturer, receivedAt];
}
