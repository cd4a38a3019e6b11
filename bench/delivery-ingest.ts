import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { BENCH_ITEM_NAMES, benchPayload } from './delivery-payloads.ts';

/**
 * Background ingestion for the delivery benchmark: a worker thread with its own services (its
 * own connection to the same SQLite file and Redis, like a pipeline worker process) writes
 * batches of harmonized data points at a fixed rate through the store the pipeline uses, so
 * each batch also publishes its cache invalidation, for the benchmark's VINs and a crowd of
 * others, until told to stop; it can be paused and resumed. The points come as whole
 * telemetry messages, as vehicles send them and the pipeline stores them (performance.md: the
 * realistic full message, not one signal): every item of one VIN at one time, the VINs in turn.
 */
export interface IngestSpec {
  /** The API's settings (DATA_DIR, REDIS_URL, QUEUE_PREFIX ...), so both share store and Redis. */
  env: Record<string, string>;
  vins: string[];
  pointsPerSecond: number;
  /** Points per stored batch; a multiple of the 20 items keeps each message in one batch. */
  batchSize: number;
}

async function run(spec: IngestSpec): Promise<void> {
  const config = loadConfig(spec.env);
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), config.REDIS_URL!);
  const { store } = services;
  let stop = false;
  let paused = false;
  let written = 0;
  let clockMs = Date.now();
  let seed = 0;
  // Paused while the benchmark measures its baseline, so the baseline runs without it.
  let pausedMs = 0;
  let pausedAt = 0;
  parentPort!.on('message', (m: { stop?: boolean; pause?: boolean; resume?: boolean }) => {
    if (m.stop) stop = true;
    if (m.pause && !paused) {
      paused = true;
      pausedAt = performance.now();
    }
    if (m.resume && paused) {
      paused = false;
      pausedMs += performance.now() - pausedAt;
    }
  });
  const intervalMs = (spec.batchSize / spec.pointsPerSecond) * 1000;
  const started = performance.now();
  while (!stop) {
    if (paused) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    const t0 = performance.now();
    const batch: DataPoint[] = [];
    clockMs += 1;
    for (let i = 0; i < spec.batchSize; i++) {
      const vin = spec.vins[Math.floor(seed / BENCH_ITEM_NAMES.length) % spec.vins.length]!;
      const item = BENCH_ITEM_NAMES[seed % BENCH_ITEM_NAMES.length]!;
      seed++;
      batch.push({
        vin,
        item,
        timestampMs: clockMs,
        payload: benchPayload(item, clockMs, seed),
        manufacturer: 'virtual',
        mappingVersion: 'bench',
        receivedAt: new Date().toISOString(),
      });
    }
    await store.dataPoints.insertMany(batch);
    written += batch.length;
    const spent = performance.now() - t0;
    await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - spent)));
  }
  if (paused) pausedMs += performance.now() - pausedAt;
  const seconds = (performance.now() - started - pausedMs) / 1000;
  await closeServices(services);
  parentPort!.postMessage({ written, perSecond: written / seconds });
}

if (parentPort && workerData?.ingest) void run(workerData.ingest as IngestSpec);
