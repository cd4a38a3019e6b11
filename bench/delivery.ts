/**
 * `npm run bench:delivery`: requests of 10 VINs × 20 items against POST /delivery/v1/in-vehicle
 * with ingestion running (a worker thread writing data points into the same store), next to a
 * Fastify hello-world baseline measured in the same run with the same load generator.
 * Targets (reference/performance.md): ≥ 25 % of the hello-world rate, p99 ≤ 20 ms.
 *
 * The API runs as it is deployed (docker-compose.yml): BENCH_API_PROCESSES api processes
 * (default 2, one per core), forked from this script, sharing the store and Redis; the load
 * generator spreads its connections over them as nginx would. The hello-world is measured both
 * in one process and in as many processes as the API, and the faster of the two is the
 * baseline, so the API gets no more processes than its baseline had.
 *
 * The machine is shared and its speed drifts by a factor of two within minutes, so the two are
 * measured in alternating short slices (hello-world, then delivery, for several rounds) and the
 * ratio is taken over the pooled slices; each round's own ratio is printed too. Ingestion is
 * paused during the hello-world slices and runs during every delivery slice. For reference, the
 * script also measures once, in this process, a constant answer of the same size and the floor
 * (that answer after the rate-limit decision), and delivery with ingestion paused.
 *
 * Settings: BENCH_ROUNDS (default 6), BENCH_SECONDS (measured seconds per slice, default 4, after
 * 1 s of warm-up), BENCH_CONNECTIONS (default 8), BENCH_API_PROCESSES (default 2),
 * BENCH_INGEST_RATE (data points/s written meanwhile, default 5000), REDIS_URL (default: a
 * private redis-server).
 */
import type { FastifyReply } from 'fastify';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createFixedWindowLimiter } from '../src/rate-limit/fixed-window.ts';
import { freePort } from '../src/main/free-port.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { forkChild } from './bench-child.ts';
import type { IngestSpec } from './delivery-ingest.ts';
import { percentile, type LoadResult, type LoadSpec } from './delivery-load.ts';
import { helloWorld } from './hello-world.ts';
import { BENCH_ITEM_NAMES } from './delivery-payloads.ts';
import { BENCH_VINS, seedBench } from './delivery-seed.ts';
import { loadGenerator, tsWorker } from './load-thread.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE ?? 5000);
const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 2);
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

/** `count` processes of bench/delivery-server.ts, each on its own port. */
async function forkServers(kind: 'api' | 'hello', count: number, env: Record<string, string> = {}, staticBody = '') {
  const children: ChildProcess[] = [];
  const origins: string[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    children.push(await forkChild('delivery-server.ts', { BENCH_SERVER: kind, BENCH_PORT: String(port), BENCH_ENV: JSON.stringify(env), BENCH_STATIC_BODY: staticBody }));
    origins.push(`http://127.0.0.1:${port}`);
  }
  // A child that died during the run has nothing left to stop (and would never emit 'exit' again).
  const stopped = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  const stop = () =>
    Promise.all(children.filter((c) => !stopped(c)).map((c) => new Promise((resolve) => (c.once('exit', resolve), c.send({ cmd: 'stop' })))));
  return { origins, stop };
}

const processes = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;

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
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const headers = await seedBench(services);
    const body = JSON.stringify({ version: '1.0', vehicles: BENCH_VINS.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems: BENCH_ITEM_NAMES });
    const common = { connections: CONNECTIONS, warmupMs: 1000, durationMs: SECONDS * 1000, expectStatus: 200 };
    const loader = loadGenerator();
    const load = (spec: LoadSpec) => loader.run(spec);

    // The API processes read the store this process seeded (its SECRET_KEY file in DATA_DIR too).
    const api = await forkServers('api', API_PROCESSES, env);
    stops.push(api.stop);
    const deliver = (origin: string) => fetch(`${origin}/delivery/v1/in-vehicle`, { method: 'POST', headers, body });
    const check = await deliver(api.origins[0]!);
    const checkBody = await check.text();
    const entries = (JSON.parse(checkBody) as { inVehicleData: { response?: Record<string, { dataPoint?: unknown }> }[] }).inVehicleData;
    const served = entries.reduce((n, e) => n + Object.values(e.response ?? {}).filter((r) => r.dataPoint).length, 0);
    if (check.status !== 200 || served !== 200) throw new Error(`sanity check failed: ${check.status}, ${served} data points`);
    // Bare Fastify servers, as many processes as the API has: hello-world, and the same delivery
    // answer as a constant (performance.md's target: a static answer of the same size served with
    // the same number of processes).
    const helloN = API_PROCESSES > 1 ? await forkServers('hello', API_PROCESSES, {}, checkBody) : undefined;
    if (helloN) stops.push(helloN.stop);

    // Baselines on a bare Fastify in this process: hello-world, and (for reference, measured once)
    // the same route returning a real delivery answer as a constant, to show what moving 21 KB per
    // request costs by itself; then the floor: that plus the rate-limit decision (subscription + 10
    // vehicles, from leased tokens: most requests make no Redis call) every delivery makes, before
    // authentication and data.
    const hello = helloWorld();
    const constantAnswer = (reply: FastifyReply) => reply.type('application/json; charset=utf-8').send(checkBody);
    hello.post('/static', async (_req, reply) => constantAnswer(reply));
    const limiter = createFixedWindowLimiter(services.redis, services.clock, services.logger);
    const counters = ['s', ...BENCH_VINS].map((k) => ({ key: `${config.QUEUE_PREFIX}:floor:${k}`, limit: 1e9, windowS: 60 }));
    hello.post('/floor', async (_req, reply) => {
      await limiter.hit(counters);
      return constantAnswer(reply);
    });
    const helloOrigin = await hello.listen({ port: 0, host: '127.0.0.1' });
    stops.push(() => hello.close());
    const bare = { ...common, origins: [helloOrigin], method: 'POST' as const, headers: { 'content-type': 'application/json' }, body };
    console.log(`static answer of ${checkBody.length} bytes (reference, 1 process): ${SECONDS} s ...`);
    const staticAnswer = await load({ ...bare, path: '/static' });
    console.log(`floor: the constant answer after the rate-limit decision (reference, 1 process): ${SECONDS} s ...`);
    const floor = await load({ ...bare, path: '/floor' });
    let staticN: LoadResult | undefined;
    if (helloN) {
      console.log(`static answer of ${checkBody.length} bytes (the target's baseline, ${processes(API_PROCESSES)}): ${SECONDS} s ...`);
      staticN = await load({ ...bare, origins: helloN.origins, path: '/static' });
    }

    const ingest = tsWorker('./delivery-ingest.ts', {
      ingest: { env, vins: [...BENCH_VINS, ...CROWD], pointsPerSecond: INGEST_RATE, batchSize: 240 } satisfies IngestSpec,
    });
    const helloSpec = (origins: string[]): LoadSpec => ({ ...common, origins, method: 'GET', path: '/', headers: {} });
    const deliverySpec: LoadSpec = { ...common, origins: api.origins, method: 'POST', path: '/delivery/v1/in-vehicle', headers, body };
    // The forked processes start cold: one unmeasured slice each before the rounds.
    await load({ ...deliverySpec, durationMs: 2000 });
    if (helloN) await load({ ...helloSpec(helloN.origins), durationMs: 1000 });
    console.log(
      `${ROUNDS} rounds of hello-world (1 process${helloN ? `, then ${processes(API_PROCESSES)}` : ''}) then delivery (${processes(API_PROCESSES)}; ` +
        `10 VINs × 20 items, ingestion at ${INGEST_RATE} points/s in 20-item messages), ${SECONDS} s each, ${CONNECTIONS} connections ...`,
    );
    const hellos: LoadResult[] = [];
    const hellosN: LoadResult[] = [];
    const deliveries: LoadResult[] = [];
    const roundRatios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      ingest.postMessage({ pause: true });
      const h = await load(helloSpec([helloOrigin]));
      const hn = helloN ? await load(helloSpec(helloN.origins)) : undefined;
      ingest.postMessage({ resume: true });
      const d = await load(deliverySpec);
      hellos.push(h);
      if (hn) hellosN.push(hn);
      deliveries.push(d);
      const base = Math.max(h.perSecond, hn?.perSecond ?? 0);
      roundRatios.push((d.perSecond / base) * 100);
      const helloText = `hello-world ${h.perSecond.toFixed(0)}${hn ? ` / ${hn.perSecond.toFixed(0)}` : ''} req/s`;
      console.log(`  round ${round}: ${helloText}, delivery ${d.perSecond.toFixed(0)} req/s, ${roundRatios.at(-1)!.toFixed(1)} %`);
    }
    // Reference, once: the same delivery load with ingestion paused, to show ingestion's share.
    ingest.postMessage({ pause: true });
    const quiet = await load(deliverySpec);
    ingest.postMessage({ resume: true });
    await loader.close();
    const baseline1 = pooled(hellos);
    const baselineN = hellosN.length > 0 ? pooled(hellosN) : undefined;
    const baseline = baselineN && baselineN.perSecond > baseline1.perSecond ? baselineN : baseline1;
    const delivery = pooled(deliveries);
    roundRatios.sort((x, y) => x - y);
    const ingested = await new Promise<{ written: number; perSecond: number }>((resolve) => {
      ingest.once('message', resolve);
      ingest.postMessage({ stop: true });
    });
    await ingest.terminate();
    // The answers came from the read models while ingestion kept changing the data: check that
    // what every API process serves now is exactly what the store holds (each batch published
    // its invalidation; give the last ones a moment to arrive).
    await new Promise((r) => setTimeout(r, 100));
    const stored = await services.store.dataPoints.latestPayloadsJson(BENCH_VINS, BENCH_ITEM_NAMES);
    for (const origin of api.origins) {
      const after = await deliver(origin);
      const answered = ((await after.json()) as { inVehicleData: { identifier: { value: string }; response: Record<string, { dataPoint?: unknown }> }[] }).inVehicleData;
      const stale = stored.filter((p) => {
        const entry = answered.find((e) => e.identifier.value === p.vin);
        return JSON.stringify(entry?.response[p.item]?.dataPoint) !== JSON.stringify(JSON.parse(p.payloadJson));
      });
      if (stale.length > 0) throw new Error(`${origin} served ${stale.length} stale data points after ingestion`);
    }

    const ratio = delivery.perSecond / baseline.perSecond;
    const label = (text: string) => text.padEnd(27);
    console.log('');
    console.log(`${label('hello-world, 1 process')}${fmt(baseline1)}${baseline === baseline1 ? '  (baseline)' : ''}`);
    if (baselineN) console.log(`${label(`hello-world, ${processes(API_PROCESSES)}`)}${fmt(baselineN)}${baseline === baselineN ? '  (baseline)' : ''}`);
    console.log(`${label('static 21 KB, 1 process')}${fmt(staticAnswer)}`);
    if (staticN) console.log(`${label(`static 21 KB, ${processes(API_PROCESSES)}`)}${fmt(staticN)}`);
    console.log(`${label('floor, 1 process')}${fmt(floor)}  (no ingestion)`);
    console.log(`${label(`delivery, ${processes(API_PROCESSES)}`)}${fmt(delivery)}`);
    console.log(`${label('no ingestion')}${fmt(quiet)}  (delivery with ingestion paused, reference)`);
    console.log(`ingestion    ${ingested.perSecond.toFixed(0)} data points/s written meanwhile (${ingested.written} in all); afterwards all ${BENCH_VINS.length * BENCH_ITEM_NAMES.length} delivered values equal the store's latest in every API process`);
    const mid = roundRatios.length / 2;
    const median = Number.isInteger(mid) ? (roundRatios[mid - 1]! + roundRatios[mid]!) / 2 : roundRatios[Math.floor(mid)]!;
    const staticSame = staticN && staticN.perSecond > staticAnswer.perSecond ? staticN : staticAnswer;
    const ofStatic = delivery.perSecond / staticSame.perSecond;
    console.log(`target       ${(ofStatic * 100).toFixed(1)} % of the static answer of the same size (the faster of 1 and ${processes(API_PROCESSES)}; target ≥ 60 %): ${ofStatic >= 0.6 ? 'met' : 'NOT met'}`);
    console.log(`reference    ${(ratio * 100).toFixed(1)} % of hello-world over all rounds; rounds ${roundRatios[0]!.toFixed(1)}–${roundRatios.at(-1)!.toFixed(1)} %, median ${median.toFixed(1)} %`);
    console.log(`p99          ${delivery.p99Ms.toFixed(2)} ms (target ≤ 20 ms): ${delivery.p99Ms <= 20 ? 'met' : 'NOT met'}`);
    console.log(`reference    ${((delivery.perSecond / staticAnswer.perSecond) * 100).toFixed(1)} % of the static answer in one process`);
    // A failed request is quick, so a slice with errors overstates its rate: say so, and fail.
    const slices: [string, LoadResult | undefined][] = [
      ['hello-world, 1 process', baseline1], [`hello-world, ${processes(API_PROCESSES)}`, baselineN], ['static 21 KB', staticAnswer],
      [`static 21 KB, ${processes(API_PROCESSES)}`, staticN], ['floor', floor], ['delivery', delivery], ['no ingestion', quiet],
    ];
    for (const [name, r] of slices) {
      if (!r?.errors) continue;
      console.log(`errors       ${name}: ${r.errors} failed requests (first: ${r.firstError}); this run's figures are not valid`);
      process.exitCode = 1;
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
    await closeServices(services);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
