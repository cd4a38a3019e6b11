/**
 * `npm run bench:push`: webhook deliveries per second to a local sink, end to end (fan-out of
 * accidentautomatic events through the deliveries table and BullMQ, consent and activation
 * re-checked, signed, POSTed by the push worker), next to a raw undici POST rate to the same
 * sink measured in the same run, with the same concurrency. Then event-to-receiver latency at
 * a moderate rate. Target (reference/performance.md): at least 2,000 deliveries/s.
 *
 * Laid out as deployed: this process does the fan-out (the pipeline role's part), and the
 * delivery workers run in BENCH_PUSH_PROCESSES separate processes (the push role, default 1)
 * on the same SQLite store and Redis.
 *
 * Settings: BENCH_EVENTS (events in the throughput phase, default 6000; each goes to
 * BENCH_SUBSCRIPTIONS subscriptions, default 4), BENCH_SECONDS (baseline seconds, default 5),
 * BENCH_PUSH_PROCESSES (default 1), PUSH_CONCURRENCY (per process, default 100), REDIS_URL
 * (default: a private redis-server).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { newApiKey } from '../src/auth/api-keys.ts';
import { loadConfig } from '../src/config.ts';
import { sha256Hex } from '../src/crypto.ts';
import { createLogger } from '../src/logger.ts';
import { createPushFanoutEnqueuer } from '../src/push/fanout/fanout.ts';
import { putWebhook } from '../src/push/webhooks/webhook-config.ts';
import { systemResolver } from '../src/push/ssrf/resolver.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { type Services } from '../src/services.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { startSink, type Sink } from './push-sink.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 6000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.PUSH_CONCURRENCY ?? 100);
const PUSH_PROCESSES = Number(process.env.BENCH_PUSH_PROCESSES ?? 1);
const VEHICLES = 500;
const VINS = Array.from({ length: VEHICLES }, (_, i) => `V1RTUALV1NB${String(i).padStart(6, '0')}`);

/** The body a push carries, for a like-for-like baseline. */
const SAMPLE_BODY = JSON.stringify({
  forwardedAt: new Date().toISOString(), transactionId: randomUUID(), subscriptionId: randomUUID(),
  inVehicleResponse: { version: '1.0', deliveredAt: new Date().toISOString(), inVehicleData: [{ identifier: { type: 'VIN', value: VINS[0] }, response: { accidentautomatic: { dataPoint: { receivedAt: new Date().toISOString() } } } }] },
});

async function rawUndiciRate(sink: Sink): Promise<number> {
  const pool = new Pool(new URL(sink.url).origin, { connections: CONCURRENCY, pipelining: 1 });
  const headers = { 'content-type': 'application/json', 'webhook-id': randomUUID(), 'webhook-timestamp': '1780000000', 'webhook-signature': `v1,${'A'.repeat(44)}` };
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const res = await pool.request({ path: '/hook', method: 'POST', headers, body: SAMPLE_BODY });
      await res.body.dump();
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const rate = done / ((performance.now() - started) / 1000);
  await pool.close();
  return rate;
}

async function seed(services: Services, sinkUrl: string): Promise<void> {
  const { store } = services;
  const at = new Date().toISOString();
  for (let s = 0; s < SUBSCRIPTIONS; s++) {
    const consumerId = randomUUID();
    await store.consumers.create({ consumerId, name: `bench ${s}`, createdAt: at });
    await store.consumers.addApiKey(newApiKey(consumerId, new Date()).record);
    const subscriptionId = randomUUID();
    const subscription = { subscriptionId, consumerId, dataItems: ['accidentautomatic', 'crashseverity'], allowedRedirectUrls: [], legalBasis: 'CONSENT' as const, createdAt: at };
    await store.subscriptions.create(subscription);
    await putWebhook(services, subscription, { url: sinkUrl, authorization: 'Bearer bench' }, systemResolver);
    for (const vin of VINS) {
      await store.vehicles.upsert({ subscriptionId, vin, manufacturer: 'virtual', status: 'ACTIVATED', createdAt: at, updatedAt: at });
      await store.consents.create({
        consentId: randomUUID(), consumerId, subscriptionId, vin, state: 'ACTIVE', stateChangedAt: at, createdAt: at, manufacturer: 'virtual',
        dataItems: ['accidentautomatic'], redirectUrl: null, consumerState: null, firstName: null, lastName: null, email: null,
        consentGivenAt: at, activatedAt: at, confirmedAt: null, errorCode: null, grantedItems: ['accidentautomatic'],
        history: [{ state: 'ACTIVE', at }], sessionHash: sha256Hex(randomUUID()), csrfHash: sha256Hex(randomUUID()),
        oauthStateHash: null, pkceVerifierSealed: null, codeHash: null, consumerCodeChallenge: null,
      });
    }
  }
}

let clockMs = Date.parse('2026-06-01T00:00:00Z');
function events(n: number): DataPoint[] {
  return Array.from({ length: n }, (_, i) => {
    const now = new Date().toISOString();
    clockMs += 1;
    return { vin: VINS[i % VEHICLES]!, item: 'accidentautomatic', timestampMs: clockMs, payload: { receivedAt: now, timestamp: now }, manufacturer: 'virtual', mappingVersion: 'bench', receivedAt: now };
  });
}

async function waitForCount(sink: Sink, n: number, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  let got = 0;
  while ((got = await sink.count()) < n) {
    if (performance.now() > until) throw new Error(`sink got ${got} of ${n} deliveries`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts one push role process on the bench's environment; resolves when its workers are ready. */
async function startPushProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(new URL('./push-worker-process.ts', import.meta.url).pathname, [], {
    env: { ...process.env, ...env },
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`push process exited with ${code}`)));
  });
  return child;
}

/** Sends a command to a push process and waits for its CPU time (ms since it started). */
function askCpu(child: ChildProcess, command: 'cpu' | 'close'): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: { cpuMs: number }) => resolve(m.cpuMs));
    child.send(command);
  });
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-bench-push-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir, REDIS_URL: redisUrl, QUEUE_PREFIX: `benchpush${randomUUID().slice(0, 6)}`, LOG_LEVEL: 'warn', DEMO_SEED: 'false',
    SIMULATOR: 'off', PUSH_ALLOW_PRIVATE_TARGETS: 'true', PUSH_CONCURRENCY: String(CONCURRENCY), PUSH_RETRY_SCHEDULE_S: '1,5,30',
    SECRET_KEY: randomUUID() + randomUUID(),
  };
  const config = loadConfig(env);
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
  const sink = await startSink({ latency: true });
  try {
    console.log(`push bench: ${EVENTS} events × ${SUBSCRIPTIONS} subscriptions = ${EVENTS * SUBSCRIPTIONS} deliveries, concurrency ${CONCURRENCY}, ${VEHICLES} vehicles, SQLite store`);
    const baseline = await rawUndiciRate(sink);
    console.log(`baseline  raw undici POST to the same sink:   ${baseline.toFixed(0).padStart(7)} req/s  (${SECONDS} s, ${CONCURRENCY} in flight)`);

    await seed(services, sink.url);
    const fanout = createPushFanoutEnqueuer(services);
    const workers = await Promise.all(Array.from({ length: PUSH_PROCESSES }, () => startPushProcess(env)));
    await sink.reset();
    await sink.latencies();

    const total = EVENTS * SUBSCRIPTIONS;
    const all = events(EVENTS);
    const cpuBefore = process.cpuUsage();
    const workerCpuBefore = sum(await Promise.all(workers.map((w) => askCpu(w, 'cpu'))));
    const eluBefore = performance.eventLoopUtilization();
    const started = performance.now();
    // Batches of 200 points, PIPELINE_CONCURRENCY (4) at a time, as the pipeline hands them over.
    const batches = Array.from({ length: Math.ceil(all.length / 200) }, (_, i) => all.slice(i * 200, i * 200 + 200));
    await Promise.all(Array.from({ length: config.PIPELINE_CONCURRENCY }, async () => {
      for (let b = batches.shift(); b; b = batches.shift()) await fanout.enqueue(b);
    }));
    const fannedOut = performance.now();
    await waitForCount(sink, total, 120_000);
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const workerCpuMs = sum(await Promise.all(workers.map((w) => askCpu(w, 'cpu')))) - workerCpuBefore;
    const elu = performance.eventLoopUtilization(eluBefore);
    const rate = total / elapsed;
    console.log(`push      fan-out + signed webhook delivery:  ${rate.toFixed(0).padStart(7)} deliveries/s  (${total} in ${elapsed.toFixed(2)} s; fan-out alone ${(total / ((fannedOut - started) / 1000)).toFixed(0)} rows+jobs/s)`);
    const fanoutCpuMs = (cpu.user + cpu.system) / 1000;
    console.log(`cpu       fan-out ${(fanoutCpuMs / total).toFixed(3)} ms per delivery (event loop busy ${(elu.utilization * 100).toFixed(0)} %); push worker${PUSH_PROCESSES > 1 ? 's' : ''} ${(workerCpuMs / total).toFixed(3)} ms per delivery, ${((workerCpuMs / 1000 / elapsed) * 100).toFixed(0)} % of one core`);
    console.log(`ratio     push / raw POST: ${((rate / baseline) * 100).toFixed(1)} %   target ≥ 2000 deliveries/s: ${rate >= 2000 ? 'met' : 'NOT met'}`);
    await sink.latencies();

    // Latency at a moderate rate: about 1,000 deliveries/s offered for 3 s.
    await sink.reset();
    const rounds = 30;
    const perRound = Math.max(1, Math.round(100 / SUBSCRIPTIONS));
    for (let r = 0; r < rounds; r++) {
      const tick = performance.now();
      await fanout.enqueue(events(perRound));
      await new Promise((res) => setTimeout(res, Math.max(0, 100 - (performance.now() - tick))));
    }
    await waitForCount(sink, rounds * perRound * SUBSCRIPTIONS, 60_000);
    const lat = await sink.latencies();
    console.log(`latency   event handed to fan-out → at the receiver, ${(perRound * SUBSCRIPTIONS * 10).toFixed(0)} deliveries/s offered: p50 ${pct(lat, 50)} ms  p99 ${pct(lat, 99)} ms  (${lat.length} deliveries)`);

    for (const w of workers) await askCpu(w, 'close');
    await fanout.close();
  } finally {
    await sink.close();
    await closeServices(services);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
