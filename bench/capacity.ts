/**
 * `npm run bench:capacity`: the unit costs docs/capacity.md builds its model from, in CPU time
 * (steady on a shared machine, where rates are not) and in Redis work:
 *
 * 1. ingest: raw telemetry messages (30 catalog items each, the virtual manufacturer's full
 *    message) queued in batches of PIPELINE_BATCH_SIZE as HTTP ingest does (CPU per message of
 *    the accepting side), then harmonized by a worker and stored in SQLite (CPU per message of the
 *    worker: opening the batch, mapping, validating, storing, the fan-out filter); for each step
 *    Redis commands per message by command (INFO commandstats), Redis bytes in and out per
 *    message (total_net_input/output_bytes), Redis's own CPU per message (INFO cpu); store
 *    writes per message (calls and rows);
 * 2. delivery: POST /delivery/v1/in-vehicle of 10 VINs × 20 items (app.inject: no sockets; add
 *    `npm run bench:answer-cost`'s per-answer cost for HTTP), CPU and Redis commands per request,
 *    next to a Fastify hello-world in the same run;
 * 3. push: accident events fanned out to one webhook and delivered to a local sink (its own
 *    process), CPU per delivery in this process (fan-out, worker, signing, HTTP client), Redis
 *    commands and bytes per delivery.
 *
 * Everything runs in this one process against a private redis-server (or REDIS_URL), so its CPU
 * time is the service's. Settings: BENCH_MESSAGES (default 20,000), BENCH_REQUESTS (default
 * 5,000), BENCH_DELIVERIES (default 5,000).
 */
import Fastify from 'fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { newApiKey } from '../src/auth/api-keys.ts';
import { loadConfig } from '../src/config.ts';
import { sha256Hex } from '../src/crypto.ts';
import { rawMessage } from '../src/domain/raw-message.ts';
import { createLogger } from '../src/logger.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { buildServiceApp } from '../src/main/http-app.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { createIngest } from '../src/pipeline/ingest.ts';
import { startHarmonizeWorker } from '../src/pipeline/worker.ts';
import { createPushFanoutEnqueuer } from '../src/push/fanout/fanout.ts';
import { systemResolver } from '../src/push/ssrf/resolver.ts';
import { startPushWorkers } from '../src/push/start.ts';
import { putWebhook } from '../src/push/webhooks/webhook-config.ts';
import type { DataPoint, Store } from '../src/store/contract.ts';
import { openStore } from '../src/store/open-store.ts';
import { BENCH_ITEM_NAMES } from './delivery-payloads.ts';
import { BENCH_VINS, seedBench } from './delivery-seed.ts';
import { benchMessage, benchVin, ITEMS_PER_MESSAGE } from './ingest-message.ts';
import { startSink } from './push-sink.ts';
import { infoField, redisCpuSeconds } from './redis-info.ts';
import { pipelineContext } from '../src/main/contexts.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** What Redis counted so far: calls per command, bytes in and out, its own CPU seconds. */
interface RedisTotals {
  calls: Map<string, number>;
  netIn: number;
  netOut: number;
  cpuS: number;
}

async function redisTotals(admin: Redis): Promise<RedisTotals> {
  const [commandstats, stats, cpuS] = await Promise.all([admin.info('commandstats'), admin.info('stats'), redisCpuSeconds(admin)]);
  const calls = new Map<string, number>();
  for (const m of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return { calls, netIn: infoField(stats, 'total_net_input_bytes'), netOut: infoField(stats, 'total_net_output_bytes'), cpuS };
}

/** Redis's work between two readings, per unit: commands (total and the main ones), bytes, CPU. */
function perUnit(before: RedisTotals, after: RedisTotals, units: number, admin: string[]): string {
  const deltas = [...after.calls].map(([cmd, n]) => [cmd, n - (before.calls.get(cmd) ?? 0)] as const).filter(([cmd, n]) => n > 0 && !admin.includes(cmd));
  const total = deltas.reduce((s, [, n]) => s + n, 0);
  const top = deltas.sort((a, b) => b[1] - a[1]).slice(0, 6).map(([cmd, n]) => `${cmd} ${(n / units).toFixed(2)}`).join(', ');
  return (
    `${(total / units).toFixed(2)} commands (${top}); ${((after.netIn - before.netIn) / units).toFixed(0)} B in, ` +
    `${((after.netOut - before.netOut) / units).toFixed(0)} B out; Redis CPU ${(((after.cpuS - before.cpuS) * 1e6) / units).toFixed(1)} µs`
  );
}

/** The store with its writes counted: calls and rows (data points, latest values) per method. */
function countingStore(store: Store): { store: Store; writes: { calls: number; rows: number } } {
  const writes = { calls: 0, rows: 0 };
  const dataPoints = Object.create(store.dataPoints) as Store['dataPoints'];
  dataPoints.insertMany = async (points) => {
    writes.calls++;
    writes.rows += points.length;
    return store.dataPoints.insertMany(points);
  };
  const deliveries = Object.create(store.deliveries) as Store['deliveries'];
  deliveries.insertIfAbsent = async (row) => {
    writes.calls++;
    writes.rows++;
    return store.deliveries.insertIfAbsent(row);
  };
  return { store: { ...store, dataPoints, deliveries } as Store, writes };
}

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const admin = new Redis(redisUrl);
  const ADMIN_COMMANDS = ['info', 'client|setname', 'client|list', 'ping', 'hello'];
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-bench-capacity-'));
  const env = {
    DATA_DIR: dataDir, REDIS_URL: redisUrl, QUEUE_PREFIX: `benchcap${randomUUID().slice(0, 6)}`, SECRET_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn', DEMO_SEED: 'false', SIMULATOR: 'off', PUSH_ALLOW_PRIVATE_TARGETS: 'true', INGEST_MAX_FUTURE_S: '315360000',
    RATE_LIMIT_SUBSCRIPTION_MAX: '100000000', RATE_LIMIT_VEHICLE_MAX: '100000000', PUSH_CONCURRENCY: '100',
  };
  const config = loadConfig(env);
  const counted = countingStore(await openStore(config));
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl, { store: counted.store });
  console.log(`capacity bench: ${MESSAGES} messages of ${ITEMS_PER_MESSAGE} items, ${REQUESTS} delivery requests, ${DELIVERIES} push deliveries; SQLite, one process, Node ${process.version}`);
  try {
    // 1. Ingest → harmonize → store, in two steps: what the accepting side (the broker or the
    // API's HTTP ingest) spends to queue a message, then what the harmonize worker spends on it.
    const ingest = createIngest(services);
    const t0 = Date.parse('2026-06-01T00:00:00Z');
    const messages = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: new Date().toISOString() }, benchMessage(benchVin(from + i), t0 + from + i)));
    const stored = async (n: number) => {
      while ((await services.store.dataPoints.count()) < n * ITEMS_PER_MESSAGE) await sleep(20);
    };
    // Warm-up: JIT, connections, prepared statements.
    let worker = startHarmonizeWorker(pipelineContext(services));
    await ingest.enqueueNow(messages(0, 1000));
    await stored(1000);
    await worker.close();
    const batch = messages(1000, MESSAGES);
    const q0 = await redisTotals(admin);
    let c0 = process.cpuUsage();
    for (let i = 0; i < batch.length; i += 1000) await ingest.enqueueNow(batch.slice(i, i + 1000));
    const queueCpu = cpuMs(c0);
    const q1 = await redisTotals(admin);
    const writes0 = { ...counted.writes };
    c0 = process.cpuUsage();
    const w0 = performance.now();
    worker = startHarmonizeWorker(pipelineContext(services));
    await stored(1000 + MESSAGES);
    const cpu = cpuMs(c0);
    const wall = (performance.now() - w0) / 1000;
    const r1 = await redisTotals(admin);
    console.log(`queue     CPU ${((queueCpu * 1000) / MESSAGES).toFixed(0)} µs per message accepted and queued (batches of ${config.PIPELINE_BATCH_SIZE}, sealed) → ${((MESSAGES / queueCpu) * 1000).toFixed(0)} messages/s per core`);
    console.log(`queue     Redis per message: ${perUnit(q0, q1, MESSAGES, ADMIN_COMMANDS)}`);
    console.log(`harmonize CPU ${((cpu * 1000) / MESSAGES).toFixed(0)} µs per message (open the batch, map, validate, store, fan-out filter) → ${((MESSAGES / cpu) * 1000).toFixed(0)} messages/s per busy core (${(MESSAGES / wall).toFixed(0)} msg/s wall)`);
    console.log(`harmonize Redis per message: ${perUnit(q1, r1, MESSAGES, ADMIN_COMMANDS)}`);
    console.log(`harmonize store per message: ${((counted.writes.calls - writes0.calls) / MESSAGES).toFixed(3)} write calls (one per batch), ${((counted.writes.rows - writes0.rows) / MESSAGES).toFixed(1)} data points, each also upserting its latest value`);
    await worker.close();
    await ingest.close();

    // 2. Delivery reads.
    const headers = await seedBench(services);
    const app = await buildServiceApp(services);
    await app.ready();
    const body = JSON.stringify({ version: '1.0', vehicles: BENCH_VINS.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems: BENCH_ITEM_NAMES });
    const request = () => app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: { ...headers, 'content-type': 'application/json' }, payload: body });
    for (let i = 0; i < 500; i++) if ((await request()).statusCode !== 200) throw new Error('delivery request failed');
    const hello = Fastify();
    const answer = Buffer.alloc(21_000, 'x');
    hello.get('/', async () => answer);
    for (let i = 0; i < 500; i++) await hello.inject({ method: 'GET', url: '/' });
    let c = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) await hello.inject({ method: 'GET', url: '/' });
    const helloCpu = cpuMs(c) / REQUESTS;
    const d0 = await redisTotals(admin);
    c = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) await request();
    const deliveryCpu = cpuMs(c) / REQUESTS;
    const d1 = await redisTotals(admin);
    console.log(`delivery  CPU ${(deliveryCpu * 1000).toFixed(0)} µs per request of 10 VINs × 20 items (in process) → ${(1000 / deliveryCpu).toFixed(0)} requests/s per core before HTTP; a 21 KB hello-world ${(helloCpu * 1000).toFixed(0)} µs`);
    console.log(`delivery  Redis per request: ${perUnit(d0, d1, REQUESTS, ADMIN_COMMANDS)}`);
    await app.close();
    await hello.close();

    // 3. Push deliveries.
    const sink = await startSink();
    try {
      const at = new Date().toISOString();
      const consumerId = randomUUID();
      await services.store.consumers.create({ consumerId, name: 'bench push', createdAt: at });
      await services.store.consumers.addApiKey(newApiKey(consumerId, new Date()).record);
      const subscription = { subscriptionId: randomUUID(), consumerId, dataItems: ['accidentautomatic'], allowedRedirectUrls: [], legalBasis: 'CONSENT' as const, createdAt: at };
      await services.store.subscriptions.create(subscription);
      await putWebhook(services, subscription, { url: sink.url, authorization: 'Bearer bench' }, systemResolver);
      const vins = Array.from({ length: 200 }, (_, i) => `V1RTUALV1NP${String(i).padStart(6, '0')}`);
      for (const vin of vins) {
        await services.store.vehicles.upsert({ subscriptionId: subscription.subscriptionId, vin, manufacturer: 'virtual', status: 'ACTIVATED', createdAt: at, updatedAt: at });
        await services.store.consents.create({
          consentId: randomUUID(), consumerId, subscriptionId: subscription.subscriptionId, vin, state: 'ACTIVE', stateChangedAt: at, createdAt: at, manufacturer: 'virtual',
          dataItems: ['accidentautomatic'], redirectUrl: null, consumerState: null, firstName: null, lastName: null, email: null,
          consentGivenAt: at, activatedAt: at, confirmedAt: null, errorCode: null, grantedItems: ['accidentautomatic'],
          history: [{ state: 'ACTIVE', at }], sessionHash: sha256Hex(randomUUID()), csrfHash: sha256Hex(randomUUID()),
          oauthStateHash: null, pkceVerifierSealed: null, codeHash: null, consumerCodeChallenge: null,
        });
      }
      const fanout = createPushFanoutEnqueuer(services);
      const pushers = await startPushWorkers(services);
      let t = Date.parse('2026-06-01T00:00:00Z');
      const events = (n: number): DataPoint[] =>
        Array.from({ length: n }, (_, i) => ({ vin: vins[i % vins.length]!, item: 'accidentautomatic', timestampMs: ++t, payload: { receivedAt: at, timestamp: at }, manufacturer: 'virtual', mappingVersion: 'bench', receivedAt: at }));
      const deliver = async (n: number) => {
        const before = await sink.count();
        const all = events(n);
        for (let i = 0; i < all.length; i += 200) await fanout.enqueue(all.slice(i, i + 200));
        while ((await sink.count()) < before + n) await sleep(10);
      };
      await deliver(500);
      const p0 = await redisTotals(admin);
      c = process.cpuUsage();
      await deliver(DELIVERIES);
      const pushCpu = cpuMs(c) / DELIVERIES;
      const p1 = await redisTotals(admin);
      console.log(`push      CPU ${(pushCpu * 1000).toFixed(0)} µs per delivery (fan-out, worker, signing, HTTP client) → ${(1000 / pushCpu).toFixed(0)} deliveries/s per core`);
      console.log(`push      Redis per delivery: ${perUnit(p0, p1, DELIVERIES, ADMIN_COMMANDS)}`);
      for (const p of pushers.reverse()) await p.close();
      await fanout.close();
    } finally {
      await sink.close();
    }
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(`machine   load average ${load} over ${(await import('node:os')).cpus().length} cores (figures are CPU time, so a busy machine slows the run, not the costs, much)`);
  } finally {
    admin.disconnect();
    await closeServices(services);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
