/**
 * `npm run bench:delivery`: requests of 10 VINs × 20 items against POST /delivery/v1/in-vehicle
 * with ingestion running (a worker thread writing data points into the same store), next to a
 * Fastify hello-world baseline measured in the same run with the same load generator.
 * Targets (reference/performance.md): ≥ 25 % of the hello-world rate, p99 ≤ 20 ms.
 *
 * The machine is shared and its speed drifts by a factor of two within minutes, so the two are
 * measured in alternating short slices (hello-world, then delivery, for several rounds) and the
 * ratio is taken over the pooled slices; each round's own ratio is printed too. Ingestion is
 * paused during the hello-world slices and runs during every delivery slice. For reference, the
 * script also measures once a constant answer of the same size, the floor (that answer after the
 * rate-limit decision) and delivery with ingestion paused.
 *
 * Settings: BENCH_ROUNDS (default 6), BENCH_SECONDS (measured seconds per slice, default 4, after
 * 1 s of warm-up), BENCH_CONNECTIONS (default 8), BENCH_INGEST_RATE (data points/s written
 * meanwhile, default 5000), REDIS_URL (default: a private redis-server).
 */
import Fastify, { type FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPrivateRedis } from '../src/runtime/private-redis.ts';
import { closeServices, createServices } from '../src/services.ts';
import { percentile, type LoadResult, type LoadSpec } from './delivery-load.ts';
import type { IngestSpec } from './delivery-ingest.ts';
import { BENCH_ITEM_NAMES } from './delivery-payloads.ts';
import { createFixedWindowLimiter } from '../src/rate-limit/fixed-window.ts';
import { BENCH_VINS, seedBench } from './delivery-seed.ts';
import { loadGenerator, tsWorker } from './load-thread.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE ?? 5000);
const CROWD = Array.from({ length: 490 }, (_, i) => `V1RTUALV1NC${String(i).padStart(6, '0')}`);

/** Runs of one kind pooled: requests over measured time, percentiles over all latencies. */
function pooled(runs: LoadResult[]): LoadResult {
  const latencies = Float64Array.from(runs.flatMap((r) => [...r.latencies])).sort();
  const seconds = runs.reduce((n, r) => n + r.requests / r.perSecond, 0);
  const firstError = runs.find((r) => r.firstError)?.firstError;
  return {
    latencies,
    requests: latencies.length,
    errors: runs.reduce((n, r) => n + r.errors, 0),
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...(firstError ? { firstError } : {}),
  };
}

const fmt = (r: LoadResult) =>
  `${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  (${r.requests} requests, ${r.errors} errors)`;

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-bench-'));
  const env = {
    DATA_DIR: dataDir, REDIS_URL: redisUrl, QUEUE_PREFIX: `bench${randomUUID().slice(0, 6)}`, LOG_LEVEL: 'warn',
    DEMO_SEED: 'false', SIMULATOR: 'off', RATE_LIMIT_SUBSCRIPTION_MAX: '100000000', RATE_LIMIT_VEHICLE_MAX: '100000000',
  };
  const config = loadConfig(env);
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
  try {
    const headers = await seedBench(services);
    const body = JSON.stringify({ version: '1.0', vehicles: BENCH_VINS.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems: BENCH_ITEM_NAMES });
    const common = { connections: CONNECTIONS, warmupMs: 1000, durationMs: SECONDS * 1000, expectStatus: 200 };
    const loader = loadGenerator();
    const load = (spec: LoadSpec) => loader.run(spec);

    const app = await buildApp(services);
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const check = await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers, payload: body });

    // Baselines on a bare Fastify: hello-world, and (for reference, measured once) the same route returning a
    // real delivery answer as a constant, to show what moving 21 KB per request costs by itself;
    // then the floor: that plus the rate-limit decision (subscription + 10 vehicles, from leased
    // tokens: most requests make no Redis call) every delivery makes, before authentication and data.
    const hello = Fastify({ logger: false });
    hello.get('/', async () => ({ hello: 'world' }));
    const constantAnswer = (reply: FastifyReply) => reply.type('application/json; charset=utf-8').send(check.body);
    hello.post('/static', async (_req, reply) => constantAnswer(reply));
    const limiter = createFixedWindowLimiter(services.redis, services.clock, services.logger);
    const counters = ['s', ...BENCH_VINS].map((k) => ({ key: `${config.QUEUE_PREFIX}:floor:${k}`, limit: 1e9, windowS: 60 }));
    hello.post('/floor', async (_req, reply) => {
      await limiter.hit(counters);
      return constantAnswer(reply);
    });
    const helloOrigin = await hello.listen({ port: 0, host: '127.0.0.1' });
    console.log(`static answer of ${check.body.length} bytes (reference): ${SECONDS} s ...`);
    const staticAnswer = await load({ ...common, origin: helloOrigin, method: 'POST', path: '/static', headers: { 'content-type': 'application/json' }, body });
    console.log(`floor: the constant answer after the rate-limit decision (reference): ${SECONDS} s ...`);
    const floor = await load({ ...common, origin: helloOrigin, method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body });

    const entries = check.json().inVehicleData as { response?: Record<string, { dataPoint?: unknown }> }[];
    const served = entries.reduce((n, e) => n + Object.values(e.response ?? {}).filter((r) => r.dataPoint).length, 0);
    if (check.statusCode !== 200 || served !== 200) throw new Error(`sanity check failed: ${check.statusCode}, ${served} data points`);

    const ingest = tsWorker('./delivery-ingest.ts', {
      ingest: { env, vins: [...BENCH_VINS, ...CROWD], pointsPerSecond: INGEST_RATE, batchSize: 250 } satisfies IngestSpec,
    });
    console.log(`${ROUNDS} rounds of hello-world then delivery (10 VINs × 20 items, ingestion at ${INGEST_RATE} points/s), ${SECONDS} s each, ${CONNECTIONS} connections ...`);
    const hellos: LoadResult[] = [];
    const deliveries: LoadResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      ingest.postMessage({ pause: true });
      hellos.push(await load({ ...common, origin: helloOrigin, method: 'GET', path: '/', headers: {} }));
      ingest.postMessage({ resume: true });
      deliveries.push(await load({ ...common, origin, method: 'POST', path: '/delivery/v1/in-vehicle', headers, body }));
      const [h, d] = [hellos.at(-1)!, deliveries.at(-1)!];
      console.log(`  round ${round}: hello-world ${h.perSecond.toFixed(0)} req/s, delivery ${d.perSecond.toFixed(0)} req/s, ${((d.perSecond / h.perSecond) * 100).toFixed(1)} %`);
    }
    // Reference, once: the same delivery load with ingestion paused, to show ingestion's share.
    ingest.postMessage({ pause: true });
    const quiet = await load({ ...common, origin, method: 'POST', path: '/delivery/v1/in-vehicle', headers, body });
    ingest.postMessage({ resume: true });
    await hello.close();
    await loader.close();
    const baseline = pooled(hellos);
    const delivery = pooled(deliveries);
    const roundRatios = deliveries.map((d, i) => (d.perSecond / hellos[i]!.perSecond) * 100).sort((x, y) => x - y);
    const ingested = await new Promise<{ written: number; perSecond: number }>((resolve) => {
      ingest.once('message', resolve);
      ingest.postMessage({ stop: true });
    });
    await ingest.terminate();
    // The answers came from the read model while ingestion kept changing the data: check that
    // what it serves now is exactly what the store holds (each batch published its
    // invalidation; give the last ones a moment to arrive).
    await new Promise((r) => setTimeout(r, 100));
    const after = await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers, payload: body });
    const stored = await services.store.dataPoints.latestPayloadsJson(BENCH_VINS, BENCH_ITEM_NAMES);
    const answered = after.json().inVehicleData as { identifier: { value: string }; response: Record<string, { dataPoint?: unknown }> }[];
    const stale = stored.filter((p) => {
      const entry = answered.find((e) => e.identifier.value === p.vin);
      return JSON.stringify(entry?.response[p.item]?.dataPoint) !== JSON.stringify(JSON.parse(p.payloadJson));
    });
    if (stale.length > 0) throw new Error(`delivery served ${stale.length} stale data points after ingestion`);
    await app.close();

    const ratio = delivery.perSecond / baseline.perSecond;
    console.log('');
    console.log(`hello-world  ${fmt(baseline)}`);
    console.log(`static 21 KB ${fmt(staticAnswer)}`);
    console.log(`floor        ${fmt(floor)}  (no ingestion)`);
    console.log(`delivery     ${fmt(delivery)}`);
    console.log(`no ingestion ${fmt(quiet)}  (delivery with ingestion paused, reference)`);
    console.log(`ingestion    ${ingested.perSecond.toFixed(0)} data points/s written meanwhile (${ingested.written} in all); afterwards all ${BENCH_VINS.length * BENCH_ITEM_NAMES.length} delivered values equal the store's latest`);
    const mid = roundRatios.length / 2;
    const median = Number.isInteger(mid) ? (roundRatios[mid - 1]! + roundRatios[mid]!) / 2 : roundRatios[Math.floor(mid)]!;
    console.log(`ratio        ${(ratio * 100).toFixed(1)} % of hello-world over all rounds (target ≥ 25 %): ${ratio >= 0.25 ? 'met' : 'NOT met'}; rounds ${roundRatios[0]!.toFixed(1)}–${roundRatios.at(-1)!.toFixed(1)} %, median ${median.toFixed(1)} %`);
    console.log(`p99          ${delivery.p99Ms.toFixed(2)} ms (target ≤ 20 ms): ${delivery.p99Ms <= 20 ? 'met' : 'NOT met'}`);
    console.log(`reference    delivery is ${((delivery.perSecond / staticAnswer.perSecond) * 100).toFixed(1)} % of the static answer of the same size`);
    if (delivery.firstError) console.log(`first error: ${delivery.firstError}`);
  } finally {
    await closeServices(services);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
