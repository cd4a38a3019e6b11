import { describe, expect, it } from 'vitest';
import { decodeLatestRow, encodeLatestRow, latestEntry, latestPayloadJson, type LatestEntry } from '../../src/store/sqlite/latest-row.ts';
import { packPayload } from '../../src/store/sqlite/payload-text.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const provenance = (offsetS: number) => ({ timestampMs: T0 + offsetS * 1000, manufacturer: 'virtual', mappingVersion: '1.2.0', receivedAt: new Date(T0 + offsetS * 1000 + 200).toISOString() });

/** An entry as a point being stored brings it: its packed text. */
function stored(offsetS: number, payload: Record<string, unknown>): LatestEntry {
  const p = provenance(offsetS);
  return latestEntry(p, packPayload(JSON.stringify({ timestamp: new Date(p.timestampMs).toISOString(), ...payload }), p.timestampMs));
}

const payloads = (row: Buffer) => [...decodeLatestRow(row)].map(([id, e]) => [id, e.timestampMs, e.receivedAt, JSON.parse(latestPayloadJson(e))]);

describe('SQLite latest rows', () => {
  it('keep entries read from a row (bytes) and entries of new points (text) alike', () => {
    const first = encodeLatestRow(new Map([[1, stored(0, { value: 1 })], [2, stored(0, { text: 'Zürich; 10,5 km' })]]));
    const entries = decodeLatestRow(first);
    entries.set(1, stored(5, { value: 2 }));
    entries.set(3, stored(5, { value: '€' }));
    const row = encodeLatestRow(entries);
    expect(payloads(row)).toEqual([
      [1, T0 + 5000, provenance(5).receivedAt, { timestamp: new Date(T0 + 5000).toISOString(), value: 2 }],
      [2, T0, provenance(0).receivedAt, { timestamp: new Date(T0).toISOString(), text: 'Zürich; 10,5 km' }],
      [3, T0 + 5000, provenance(5).receivedAt, { timestamp: new Date(T0 + 5000).toISOString(), value: '€' }],
    ]);
    // Text and bytes give the same JSON for one entry.
    expect(latestPayloadJson(decodeLatestRow(row).get(3)!)).toBe(latestPayloadJson(entries.get(3)!));
  });

  it('hand out rows that a later encoding does not overwrite, however large', () => {
    const small = encodeLatestRow(new Map([[1, stored(0, { value: 1 })]]));
    const copy = Buffer.from(small);
    // Far larger than the buffer rows are encoded in: it grows, and the first row stays as it was.
    const large = encodeLatestRow(new Map(Array.from({ length: 300 }, (_, i) => [i + 1, stored(1, { value: 'x'.repeat(100), i })] as const)));
    expect(small).toEqual(copy);
    expect(decodeLatestRow(large).size).toBe(300);
    expect(JSON.parse(latestPayloadJson(decodeLatestRow(large).get(300)!))).toMatchObject({ i: 299 });
    const again = encodeLatestRow(new Map([[7, stored(2, { value: 3 })]]));
    expect(small).toEqual(copy);
    expect(payloads(again)).toEqual([[7, T0 + 2000, provenance(2).receivedAt, { timestamp: new Date(T0 + 2000).toISOString(), value: 3 }]]);
  });
});
