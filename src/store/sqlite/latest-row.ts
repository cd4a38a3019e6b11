import { unpackPayloadBytes } from './payload-text.ts';
import { ByteReader, ByteWriter } from './varint.ts';

/** One item's latest value in a vehicle's latest row; the payload stays packed bytes. */
export interface LatestEntry {
  timestampMs: number;
  manufacturer: string;
  mappingVersion: string;
  receivedAt: string;
  payload: Buffer;
}

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
  const refs = [...entries].map(([itemId, e]) => [itemId, e, ref(e.manufacturer), ref(e.mappingVersion), ref(e.receivedAt)] as const);
  const w = new ByteWriter();
  w.uint(strings.size);
  for (const s of strings.keys()) w.text(s);
  w.uint(refs.length);
  for (const [itemId, e, m, v, r] of refs) {
    w.uint(itemId);
    w.int(e.timestampMs);
    w.uint(m);
    w.uint(v);
    w.uint(r);
    w.bytes(e.payload);
  }
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
  payload: Buffer.from(packed, 'utf8'),
});

export const latestPayloadJson = (e: LatestEntry): string => unpackPayloadBytes(e.payload, 0, e.payload.length, e.timestampMs);

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
