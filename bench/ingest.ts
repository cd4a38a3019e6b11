/**
 * `npm run bench:ingest`: raw telemetry published over MQTT (QoS 1) to the embedded broker at
 * rising rates, harmonized by worker processes into the store; prints end-to-end messages/s,
 * data items/s, publish-to-stored p50/p99 latency and each process's CPU time per stored message
 * (workers, broker, publisher, Redis: where the two cores go), next to the BullMQ-alone, mapping-alone,
 * store-alone and ingestion-door-alone (publisher and broker, no worker) baselines measured in
 * the same run (reference/performance.md).
 *
 * The message is the virtual manufacturer's full telemetry message of an electric car
 * (30 catalog items). Topology, as a deployment on this 2-core machine would run it: this
 * process runs the broker (the `broker` role), BENCH_WORKERS worker processes (`npm run
 * worker`) harmonize, the first of them also running the history clustering housekeeping
 * (HISTORY_CLUSTER_INTERVAL_S, at start and every 60 s by default), one more process publishes.
 *
 * Settings: BENCH_STORE_MESSAGES (messages each writer of the store-alone baseline writes,
 * default 20,000: about as many points as the end-to-end steps store, since the store's rate
 * falls as the file grows), BENCH_STEP_S (measured seconds per rate, default 6), BENCH_RATES
 * (messages/s, default 250,500,1000,1500,2000,2500,3000,3500,4000), BENCH_WORKERS (default 2), BENCH_CONNECTIONS (MQTT
 * publisher connections, default 8), PIPELINE_CONCURRENCY (default 2), PIPELINE_BATCH_MAX_BYTES
 * (the broker's batches; default the service's), REDIS_URL (default: a
 * private redis-server), BENCH_PROFILE (a directory: CPU profiles of the child processes),
 * MAPPING_COMPILER (default on; off: the workers run the JSONata interpreter, for comparison),
 * BENCH_STORE_DIR (a data folder whose store already holds data, e.g. /work/bench-data/store-new
 * grown by `npm run bench:store-build` to 20 M items: the store-alone baseline and the end-to-end
 * steps write into it, and it is kept; default: fresh files), BENCH_DOOR_RATE (msg/s published in
 * the ingestion-door-alone step, default 30,000: above what the door takes).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../src/transports/mqtt/embedded-broker.ts';
import { mqttCredentials } from '../src/adapters/secrets.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { forkChild, takeCounts } from './bench-child.ts';
import { cpuCounter } from './cpu-counter.ts';
import { redisCpuSeconds } from './redis-info.ts';
import { bullmqAloneRates, mappingAloneRate, storeAloneRate } from './ingest-baselines.ts';
import { ITEMS_PER_MESSAGE } from './ingest-message.ts';
import { openStore } from '../src/store/open-store.ts';

/** How many data points the store holds before the run. */
async function storedItems(config: Parameters<typeof openStore>[0]): Promise<number> {
  const store = await openStore(config);
  try {
    return await store.dataPoints.count();
  } finally {
    await store.close();
  }
}

const STEP_S = Number(process.env.BENCH_STEP_S ?? 6);
const RATES = (process.env.BENCH_RATES ?? '250,500,1000,1500,2000,2500,3000,3500,4000').split(',').map(Number);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const STORE_MESSAGES = Number(process.env.BENCH_STORE_MESSAGES ?? 20_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WorkerTake { messages: number; items: number; latencies: number[]; cpuMs: number }
interface PublisherTake { sent: number; acked: number; cpuMs: number }

// BENCH_PROFILE=<dir> writes a CPU profile of every child process there (node --cpu-prof).
const PROFILE = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const existingStore = process.env.BENCH_STORE_DIR;
  const dataDir = existingStore ?? mkdtempSync(join(tmpdir(), 'cvd-bench-ingest-'));
  const env = {
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `benchingest${randomUUID().slice(0, 6)}`,
    SECRET_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'false',
    SIMULATOR: 'off',
    MQTT_PORT: '0',
    PIPELINE_CONCURRENCY: process.env.PIPELINE_CONCURRENCY ?? '2',
    MAPPING_COMPILER: process.env.MAPPING_COMPILER ?? 'on',
    ...(process.env.PIPELINE_BATCH_MAX_BYTES ? { PIPELINE_BATCH_MAX_BYTES: process.env.PIPELINE_BATCH_MAX_BYTES } : {}),
  };
  const config = loadConfig(env);
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
  const virtual = services.adapters.get('virtual')!;

  console.log(`bench:ingest  message: virtual telemetry (electric, full) = ${ITEMS_PER_MESSAGE} items; ${WORKERS} worker process(es), concurrency ${env.PIPELINE_CONCURRENCY}, batch ${config.PIPELINE_BATCH_SIZE} messages, ${config.PIPELINE_BATCH_MAX_BYTES} bytes, ${config.PIPELINE_BATCH_MAX_WAIT_MS} ms`);
  // Both engines on the same messages in the same run (a shared machine: compare the ratio, not the rates).
  const telemetry = virtual.mappings.get('telemetry')!;
  const interpreted = await mappingAloneRate(telemetry, 4, false);
  const compiled = await mappingAloneRate(telemetry, 4, true);
  const rate = (r: number) => `${r.toFixed(0)} msg/s = ${(r * ITEMS_PER_MESSAGE).toFixed(0)} items/s (${(1e6 / r).toFixed(1)} µs/msg)`;
  console.log(`baseline  mapping alone (JSONata interpreter, one core): ${rate(interpreted)}`);
  console.log(`baseline  mapping alone (compiled to JavaScript, one core): ${rate(compiled)}`);
  const mapping = telemetry.engine === 'compiled' ? compiled : interpreted;
  console.log(`baseline  compiled / interpreter: ${(compiled / interpreted).toFixed(1)}x (target >= 10x); the service runs the telemetry mapping ${telemetry.engine}`);
  const bull = await bullmqAloneRates(redisUrl, env.QUEUE_PREFIX, 20_000);
  console.log(`baseline  BullMQ alone: addBulk ${bull.addsPerS.toFixed(0)} jobs/s, empty worker (concurrency 100) ${bull.processedPerS.toFixed(0)} jobs/s`);
  const held = existingStore ? await storedItems(config) : 0;
  const alone1 = await storeAloneRate(env, 1, STORE_MESSAGES, existingStore);
  const alone2 = await storeAloneRate(env, 2, STORE_MESSAGES, existingStore);
  const [storeOne, storeTwo] = [alone1.itemsPerS, alone2.itemsPerS];
  const perS = (r: number) => `${r.toFixed(0)} items/s (${(r / ITEMS_PER_MESSAGE).toFixed(0)} msg/s)`;
  const into = existingStore ? `into a file already holding ${(held / 1e6).toFixed(1)} M items` : 'into a fresh file';
  console.log(
    `baseline  store alone (SQLite, insertMany of ${config.PIPELINE_BATCH_SIZE} messages, ${STORE_MESSAGES} messages per process ${into}): one process ${perS(storeOne)}, two processes at once ${perS(storeTwo)}`,
  );
  const w = alone2.writesPerMessage;
  console.log(
    `baseline  store writes per telemetry message: ${(w.history + w.latest).toFixed(2)} (history ${w.history.toFixed(2)}, latest ${w.latest.toFixed(2)}; target <= 2), dictionary ${w.dictionary.toFixed(4)}, vehicle shapes ${w.shapes.toFixed(4)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  );
  // The store alone as the pipeline writes: one process per worker, sharing the file.
  const store = WORKERS > 1 ? storeTwo : storeOne;

  const broker = await startEmbeddedBroker(services, { port: 0 });
  const creds = mqttCredentials(config, virtual);
  // The first worker also runs the history clustering housekeeping, as one pipeline process of a deployment does.
  const workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => forkChild('ingest-worker.ts', { ...env, BENCH_HOUSEKEEPING: i === 0 ? 'on' : 'off' }, PROFILE)));
  const publisher = await forkChild('ingest-publisher.ts', { BROKER_URL: broker.url, MQTT_USERNAME: creds.username, MQTT_PASSWORD: creds.password, CONNECTIONS: String(CONNECTIONS) }, PROFILE);

  const waiting = async () => {
    const { Queue } = await import('bullmq');
    const { bullConnection } = await import('../src/queues/bull-connection.ts');
    const { HARMONIZE_QUEUE } = await import('../src/queues/harmonize-job.ts');
    const { bullQueueName } = await import('../src/queues/keys.ts');
    const q = new Queue(bullQueueName(env.QUEUE_PREFIX, HARMONIZE_QUEUE, 0), { connection: bullConnection(redisUrl, 'worker'), prefix: env.QUEUE_PREFIX });
    return { count: async () => (await q.getJobCounts('waiting', 'active')) as { waiting: number; active: number }, close: () => q.close() };
  };
  const backlog = await waiting();
  const mainCpu = cpuCounter();
  const redisCpuMs = async () => (await redisCpuSeconds(services.redis)) * 1000;

  async function step(rate: number, seconds: number) {
    publisher.send({ cmd: 'rate', rate });
    await sleep(1500);
    await takeCounts<PublisherTake>(publisher);
    await Promise.all(workers.map((w) => takeCounts<WorkerTake>(w)));
    const redis0 = await redisCpuMs();
    mainCpu.take();
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const dt = (performance.now() - t0) / 1000;
    const mainMs = mainCpu.take();
    const pub = await takeCounts<PublisherTake>(publisher);
    const takes = await Promise.all(workers.map((w) => takeCounts<WorkerTake>(w)));
    const redisMs = (await redisCpuMs()) - redis0;
    publisher.send({ cmd: 'rate', rate: 0 });
    const messages = takes.reduce((a, t) => a + t.messages, 0);
    const items = takes.reduce((a, t) => a + t.items, 0);
    const lat = takes.flatMap((t) => t.latencies).sort((a, b) => a - b);
    const r = { rate, acked: pub.acked / dt, msgs: messages / dt, items: items / dt, p50: pct(lat, 50), p99: pct(lat, 99) };
    console.log(
      `rate ${String(rate).padStart(5)} msg/s: acked ${r.acked.toFixed(0).padStart(5)}/s  stored ${r.msgs.toFixed(0).padStart(5)} msg/s = ${r.items.toFixed(0).padStart(6)} items/s  p50 ${String(r.p50).padStart(5)} ms  p99 ${String(r.p99).padStart(5)} ms`,
    );
    // Where the two cores go: each process's CPU time over the step, per stored message.
    const us = (ms: number) => (messages > 0 ? (ms * 1000) / messages : NaN);
    const parts = { workers: us(takes.reduce((a, t) => a + t.cpuMs, 0)), broker: us(mainMs), publisher: us(pub.cpuMs), redis: us(redisMs) };
    const total = parts.workers + parts.broker + parts.publisher + parts.redis;
    console.log(
      `      CPU per stored message: workers ${parts.workers.toFixed(0)} µs, broker (and this bench) ${parts.broker.toFixed(0)} µs, publisher ${parts.publisher.toFixed(0)} µs, Redis ${parts.redis.toFixed(0)} µs; ${total.toFixed(0)} µs in all (two cores: ${(2e6 / total).toFixed(0)} msg/s if they did nothing else)`,
    );
    // Drain before the next rate, so each step starts without backlog.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const c = await backlog.count();
      if (c.waiting + c.active === 0) break;
      await sleep(200);
    }
    await Promise.all(workers.map((w) => takeCounts<WorkerTake>(w)));
    return r;
  }

  const results = [];
  for (const rate of RATES) {
    const r = await step(rate, STEP_S);
    results.push(r);
    if (r.msgs < rate * 0.9 || r.p99 > 5000) break;
  }
  const best = results.reduce((a, b) => (b.msgs > a.msgs ? b : a));
  const half = Math.round(best.msgs / 2);
  console.log(`half of the maximum (${half} msg/s):`);
  const halfResult = await step(half, STEP_S);

  // The ingestion door alone: publisher, broker, authentication and job creation, with the
  // workers stopped (the jobs wait in Redis). Above what the door takes, so it is the door's
  // own maximum on this machine: the part outside the store and the mapping.
  for (const w of workers) w.send({ cmd: 'stop' });
  const doorRate = Number(process.env.BENCH_DOOR_RATE ?? 30_000);
  publisher.send({ cmd: 'rate', rate: doorRate });
  await sleep(1500);
  await takeCounts<PublisherTake>(publisher);
  const d0 = performance.now();
  await sleep(STEP_S * 1000);
  const door = (await takeCounts<PublisherTake>(publisher)).acked / ((performance.now() - d0) / 1000);
  publisher.send({ cmd: 'rate', rate: 0 });
  console.log(`baseline  ingestion door alone (publisher, broker, job creation; no worker), published at ${doorRate} msg/s: acked ${door.toFixed(0)} msg/s = ${(door * ITEMS_PER_MESSAGE).toFixed(0)} items/s`);

  console.log('\nsummary');
  console.log(`  end to end max: ${best.msgs.toFixed(0)} msg/s = ${best.items.toFixed(0)} items/s (target ≥ 100000 items/s with compiled mappings)`);
  // The target: at least 50 % of the lower of the mapping alone and the store alone.
  const lower = mapping * ITEMS_PER_MESSAGE < store ? 'the mapping alone' : 'the store alone';
  console.log(`  vs mapping alone on one core (${telemetry.engine}, as the service runs it): ${((best.msgs / mapping) * 100).toFixed(0)} %`);
  console.log(`  vs BullMQ alone: ${((best.msgs / bull.processedPerS) * 100).toFixed(0)} % of its jobs/s (one job carries up to ${config.PIPELINE_BATCH_SIZE} messages)`);
  console.log(`  vs the store alone (${WORKERS > 1 ? 'two processes' : 'one process'}): ${((best.items / store) * 100).toFixed(0)} % (target ≥ 50 % of the lower of the mapping alone and the store alone: here ${lower})`);
  console.log(`  vs the ingestion door alone: ${((best.msgs / door) * 100).toFixed(0)} % (the door and the workers share the two cores)`);
  console.log(`  p99 at half the maximum: ${halfResult.p99} ms (target ≤ 100 ms), p50 ${halfResult.p50} ms`);

  publisher.send({ cmd: 'stop' });
  await sleep(500);
  await backlog.close();
  await broker.close();
  await closeServices(services);
  await redis?.stop();
  if (!existingStore) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}

// `--broker external`: the external-broker path (Mosquitto, shared subscription) beside the
// embedded one, in bench/ingest-external.ts.
const broker = process.argv.includes('--broker') ? process.argv[process.argv.indexOf('--broker') + 1] : 'embedded';
(broker === 'external' ? import('./ingest-external.ts').then((m) => m.runExternalBench()) : main()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
