/**
 * What the MongoDB store's documents weigh per stored point, schema 1 (a document per point and
 * per (vin, item) latest value) next to schema 2 (buckets per vehicle and minute, a latest document
 * per vehicle), for the bench's realistic telemetry message (30 items, mapped by the pipeline's own
 * code), one vehicle sending every INTERVAL_S seconds for an hour. No MongoDB server runs here:
 * sizes are the driver's BSON sizes (`calculateObjectSize`) before WiredTiger's compression, and
 * index entries are counted, not measured. Also prints the documents written per message.
 *
 *   npx tsx bench/mongo-layout-size.ts            (INTERVAL_S=5 VEHICLES=20 by default)
 */
import { ObjectId } from 'mongodb';
import { loadAdapterRegistry } from '../src/adapters/registry.ts';
import { loadCatalog } from '../src/catalog/load.ts';
import { rawMessage } from '../src/domain/raw-message.ts';
import { defaultPaths } from '../src/paths.ts';
import { analyse, toDataPoints } from '../src/pipeline/harmonize.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { documentSize } from '../src/store/mongo/bson-size.ts';
import { applyInMemory, bucketKey, chunkPoints, outcomeOf, type BucketDoc } from '../src/store/mongo/buckets.ts';
import { COLLECTIONS, BUCKETS } from '../src/store/mongo/layout.ts';
import { applyLatestInMemory, type LatestDoc } from '../src/store/mongo/latest-doc.ts';
import { writesOf } from '../src/store/mongo/point-writes.ts';
import { benchMessage, benchVin } from './ingest-message.ts';

const INTERVAL_S = Number(process.env.INTERVAL_S ?? 5);
const VEHICLES = Number(process.env.VEHICLES ?? 20);
const MESSAGES = Math.floor(3600 / INTERVAL_S);

const paths = defaultPaths();
const catalog = await loadCatalog(paths.catalog);
const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), { mappingsDir: paths.mappings, engine: { compiler: true } });
const virtual = adapters.get('virtual')!;

const start = Date.parse('2026-03-01T10:00:00.000Z');
const messages: DataPoint[][] = [];
for (let v = 0; v < VEHICLES; v++) {
  for (let m = 0; m < MESSAGES; m++) {
    const vin = benchVin(v);
    const at = start + m * INTERVAL_S * 1000;
    const msg = rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date(at + 300).toISOString(), topic: `virtual/v1/${vin}/telemetry` }, benchMessage(vin, at));
    const analysis = await analyse(virtual, catalog, msg);
    if (analysis.failure) throw new Error(`the bench message does not map: ${analysis.failure.reason}`);
    messages.push(toDataPoints(virtual, analysis, msg));
  }
}
const points = messages.flat();

// Schema 1: a document per point (with its ObjectId and `at` Date), three index entries each
// (_id, the unique (vin, item, timestampMs), timestampMs); a latest document per (vin, item).
const legacyDoc = (p: DataPoint) => ({
  _id: new ObjectId(), vin: p.vin, item: p.item, timestampMs: p.timestampMs, payloadJson: JSON.stringify(p.payload),
  manufacturer: p.manufacturer, mappingVersion: p.mappingVersion, receivedAt: p.receivedAt, at: new Date(p.timestampMs),
});
const legacyBytes = points.reduce((sum, p) => sum + documentSize(legacyDoc(p)), 0);
const legacyLatest = new Map<string, DataPoint>();
for (const p of points) legacyLatest.set(`${p.vin}|${p.item}`, p);
const legacyLatestBytes = [...legacyLatest.values()].reduce((sum, p) => sum + documentSize(legacyDoc(p)), 0);

// Schema 2: each message written as the engine writes it (the model of its update pipeline).
const buckets = new Map<string, BucketDoc>();
const latest = new Map<string, LatestDoc>();
for (const msg of messages) {
  for (const chunk of chunkPoints(msg)) {
    let pending = chunk.points;
    for (let seq = 0; pending.length > 0; seq++) {
      const key = bucketKey(chunk.vin, chunk.start, seq);
      const before = buckets.get(key._id) ?? null;
      buckets.set(key._id, applyInMemory(before, key, pending));
      pending = outcomeOf(before, pending).rest;
    }
  }
  const vin = msg[0]!.vin;
  latest.set(vin, applyLatestInMemory(latest.get(vin) ?? null, vin, msg));
}
const bucketBytes = [...buckets.values()].reduce((sum, b) => sum + documentSize(b as unknown as Record<string, unknown>), 0);
const latestBytes = [...latest.values()].reduce((sum, d) => sum + documentSize(d as unknown as Record<string, unknown>), 0);
// Index entries: per bucket one for _id, one for the shard key, one for start, and one per item
// in the multikey (vin, items, start) index.
const bucketIndexEntries = [...buckets.values()].reduce((sum, b) => sum + 3 + b.items.length, 0);
const writes = messages.map(writesOf);

const n = points.length;
const fmt = (x: number) => x.toFixed(1).padStart(8);
console.log(`${VEHICLES} vehicles x ${MESSAGES} messages (one every ${INTERVAL_S} s for an hour), ${n} points, ${buckets.size} buckets`);
console.log(`                                       schema 1   schema 2`);
console.log(`history BSON bytes per point          ${fmt(legacyBytes / n)}   ${fmt(bucketBytes / n)}`);
console.log(`history index entries per point       ${fmt(3)}   ${fmt(bucketIndexEntries / n)}   (${BUCKETS} indexes: ${COLLECTIONS[BUCKETS]!.indexes.length} + _id)`);
console.log(`latest BSON bytes per vehicle         ${fmt(legacyLatestBytes / VEHICLES)}   ${fmt(latestBytes / VEHICLES)}`);
console.log(`documents written per message         ${fmt(2 * 30)}   ${fmt(writes.reduce((s, w) => s + w.history + w.latest, 0) / writes.length)}   (history + latest; max ${Math.max(...writes.map((w) => w.history + w.latest))})`);
console.log(`largest bucket                                   ${(Math.max(...[...buckets.values()].map((b) => documentSize(b as unknown as Record<string, unknown>))) / 1024).toFixed(1)} KiB`);
