/**
 * One writer of the "store alone" baseline of `npm run bench:ingest` (bench/ingest-baselines.ts),
 * in its own process, as a harmonize worker is: maps STORE_MESSAGES bench messages once with the
 * pipeline's own code (compiled mappings, src/pipeline/harmonize.ts), so it holds exactly the
 * data points a worker would write, then on the parent's `go` writes them with
 * `store.dataPoints.insertMany`, BATCH_SIZE messages per call, into the store opened as the
 * service opens it (src/store/open-store.ts, DATA_DIR). Writer WRITER_INDEX writes messages
 * of its own, so two writers never write the same point.
 */
import { loadAdapterRegistry } from '../src/adapters/registry.ts';
import { loadCatalog } from '../src/catalog/load.ts';
import { loadConfig } from '../src/config.ts';
import { rawMessage } from '../src/domain/raw-message.ts';
import { defaultPaths } from '../src/paths.ts';
import { analyse, toDataPoints } from '../src/pipeline/harmonize.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { openStore } from '../src/store/open-store.ts';
import { resetStoreWrites, storeWrites } from '../src/store/sqlite/store-writes.ts';
import { benchMessage, benchVin } from './ingest-message.ts';

const config = loadConfig(process.env);
const MESSAGES = Number(process.env.STORE_MESSAGES ?? 10_000);
const WRITER = Number(process.env.WRITER_INDEX ?? 0);
const BATCH = config.PIPELINE_BATCH_SIZE;

const paths = defaultPaths();
const catalog = await loadCatalog(paths.catalog);
const adapters = await loadAdapterRegistry(paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
  mappingsDir: paths.mappings,
  engine: { compiler: true },
});
const virtual = adapters.get('virtual')!;

// One batch per BATCH messages, as a worker receives them. The sample times are one ms apart
// and never shared between writers: every point is new, as in the end-to-end run.
const start = Date.now() - 3_600_000;
const batches: DataPoint[][] = [];
for (let i = 0; i < MESSAGES; i += BATCH) {
  const batch: DataPoint[] = [];
  for (let k = i; k < Math.min(MESSAGES, i + BATCH); k++) {
    const n = WRITER * MESSAGES + k;
    const vin = benchVin(n);
    const sampledAt = start + n;
    const msg = rawMessage(
      { manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date(sampledAt).toISOString(), topic: `virtual/v1/${vin}/telemetry` },
      benchMessage(vin, sampledAt),
    );
    const analysis = await analyse(virtual, catalog, msg);
    if (analysis.failure) throw new Error(`the bench message does not map: ${analysis.failure.reason}`);
    batch.push(...toDataPoints(virtual, analysis, msg));
  }
  batches.push(batch);
}

const store = await openStore(config);
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'go') return;
  void (async () => {
    const t0 = Date.now();
    let items = 0;
    resetStoreWrites();
    for (const b of batches) items += (await store.dataPoints.insertMany(b)).length;
    const t1 = Date.now();
    await store.close();
    process.send?.({ items, startMs: t0, endMs: t1, writes: { ...storeWrites } }, () => process.exit(0));
  })();
});
process.send?.({ ready: true });
