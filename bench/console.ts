/**
 * `npm run bench:console`: how long each console view takes to answer with 10,000 vehicles in
 * the store (a view should answer within 200 ms), next to two baselines measured in the same run
 * (docs/performance.md's rule): a Fastify hello-world and the service's own GET /health.
 *
 * One API process on the SQLite store and a private Redis; requests one at a time over real
 * HTTP (a person clicking, not a load test), signed in like a browser. Prints p50 and p99 per view.
 *
 * Settings: BENCH_VEHICLES (default 10000), BENCH_REQUESTS (per view, default 100), REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildServiceApp } from '../src/main/http-app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { bucketOf, RESOLUTIONS } from '../src/metrics/samples.ts';
import { CONSOLE_SAMPLES } from '../src/queues/keys.ts';
import { fleetFreshness } from '../src/main/fleet-freshness.ts';
import { seedConsoleFleet } from './console-seed.ts';
import { helloWorld } from './hello-world.ts';

const VEHICLES = Number(process.env.BENCH_VEHICLES ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

async function timeIt(url: string, init: RequestInit = {}): Promise<{ p50: number; p99: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < REQUESTS + 10; i++) {
    const started = performance.now();
    const res = await fetch(url, { ...init, redirect: 'manual' });
    await res.arrayBuffer();
    status = res.status;
    if (i >= 10) times.push(performance.now() - started);
  }
  return { p50: pct(times, 50), p99: pct(times, 99), status };
}

async function signIn(origin: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${origin}/console/sign-in`);
  const formCookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetch(`${origin}/console/sign-in`, {
    method: 'POST', redirect: 'manual', headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, token: 'bench-admin-token' }),
  });
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('cvd_console='))!;
  const page = await (await fetch(`${origin}/console/fleet`, { headers: { cookie } })).text();
  return { cookie, csrf: /<meta name="csrf" content="([^"]+)">/.exec(page)![1]! };
}

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-bench-console-'));
  const config = loadConfig({
    DATA_DIR: dataDir, REDIS_URL: redisUrl, QUEUE_PREFIX: `benchconsole${randomUUID().slice(0, 6)}`, LOG_LEVEL: 'warn', DEMO_SEED: 'false',
    SIMULATOR: 'off', ADMIN_TOKEN: 'bench-admin-token', SECRET_KEY: randomUUID() + randomUUID(), RATE_LIMIT_AUTH_FAILURE_MAX: '1000',
  });
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
  const app = await buildServiceApp(services);
  const hello = helloWorld();
  try {
    const seedStart = performance.now();
    const seed = await seedConsoleFleet(services, VEHICLES);
    // Every bucket of every range filled as a busy installation fills it: 3 manufacturers, 2 transports, 4 queues, the latency buckets.
    const fields: Record<string, number> = {};
    for (const m of ['virtual', 'borealis', 'kestrel']) Object.assign(fields, { [`in|${m}|mqtt`]: 900, [`in|${m}|http`]: 300, [`stored|${m}`]: 9000, [`failed|${m}`]: 3 });
    for (const le of ['0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60', '300', '+Inf']) fields[`lat|le|${le}`] = 1000;
    Object.assign(fields, { 'lat|sum': 80_000, 'lat|count': 1000, 'push|delivered': 500, 'push|retrying': 5, 'g:quarantine|all': 2000, 'g:fresh|within 5 min': 9000, 'g:fresh|longer ago': 1000 });
    for (const q of ['harmonize', 'push-fanout', 'push-deliveries', 'activations']) fields[`g:queue|${q}`] = 10;
    const fill = services.redis.pipeline();
    for (const r of RESOLUTIONS) {
      for (let i = 0; i < r.points; i++) {
        const key = CONSOLE_SAMPLES.key(config.QUEUE_PREFIX, r.range, bucketOf(Date.now(), r) - i * r.stepMs);
        fill.hset(key, fields).expire(key, r.ttlS);
      }
    }
    await fill.exec();
    console.log(`console bench: ${VEHICLES} vehicles seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (SQLite store), ${REQUESTS} sequential requests per view`);
    await hello.listen({ port: 0, host: '127.0.0.1' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const helloUrl = `http://127.0.0.1:${(hello.server.address() as { port: number }).port}/`;
    const { cookie, csrf } = await signIn(origin);
    const get = { headers: { cookie } };
    const post = (body: unknown) => ({ method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const raw = JSON.stringify({ vin: 'V1RTUALV1N0000001', ts: '2026-11-25T10:00:00Z', signals: {} });

    const baseline = await timeIt(helloUrl);
    const health = await timeIt(`${origin}/health`);
    const line = (name: string, r: { p50: number; p99: number; status: number }) =>
      console.log(`${name.padEnd(46)} p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  ${(r.p50 / baseline.p50).toFixed(1).padStart(6)}x hello  ${r.status}${r.p99 < 200 ? '' : '  OVER 200 ms'}`);
    line('baseline: Fastify hello-world', baseline);
    line('baseline: GET /health', health);
    const views: [string, string, RequestInit?][] = [
      ['fleet, first page (50 vehicles)', '/console/fleet'],
      ['fleet, a middle page', `/console/fleet?after=${seed.middleVin}`],
      ['fleet, one manufacturer', '/console/fleet?manufacturer=borealis'],
      ['fleet, VIN search', '/console/fleet?vin=V1RTUALV1N00051'],
      ['fleet map data (50 vehicles × 40 positions)', '/console/fleet/map.json'],
      ['vehicle page', `/console/vehicles/${seed.middleVin}`],
      ['vehicle page, a week of data', `/console/vehicles/${seed.busyVin}?range=7d`],
      ['vehicle history chart, 1 day (1,440 read, 1,000 sent)', `/console/vehicles/${seed.busyVin}/history.json?item=mileage&range=24h`],
      ['vehicle history chart, 7 days (10,000 of 10,080 read, 1,000 sent)', `/console/vehicles/${seed.busyVin}/history.json?item=mileage&range=7d`],
      ['pipeline page', '/console/pipeline'],
      ['pipeline series, 1 h (60 minutes)', '/console/pipeline/series.json?range=1h'],
      ['pipeline series, 24 h (96 quarter hours)', '/console/pipeline/series.json?range=24h'],
      ['pipeline series, 7 d (168 hours)', '/console/pipeline/series.json?range=7d'],
      ['mappings (manufacturers, recent reloads)', '/console/mappings'],
      ['quarantine, first page', '/console/quarantine'],
      ['quarantine, one reason', '/console/quarantine?code=SCHEMA_VIOLATION'],
      ['quarantined message', `/console/quarantine/${seed.quarantineId}`],
      ['playground page', '/console/playground?manufacturer=virtual&messageType=telemetry'],
      ['playground lists (another manufacturer)', '/console/playground/lists.json?manufacturer=kestrel'],
      ['playground dry run (POST)', '/console/playground/run.json', post({ manufacturer: 'virtual', messageType: 'telemetry', mapping: '{"vin": vin, "items": {}}', raw })],
      ['consumers', '/console/consumers'],
      ['consumer', `/console/consumers/${seed.consumerId}`],
      ['delivery log (2,000 dead)', `/console/subscriptions/${seed.subscriptionId}/deliveries`],
      ['consent funnel (7 days, 10,000 processes)', '/console/funnel'],
    ];
    for (const [name, path, init] of views) line(name, await timeIt(`${origin}${path}`, init ?? get));
    // Not a view: the api role's freshness gauge, read once a minute (a grouped read over every vehicle's latest values).
    const fresh: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await fleetFreshness(services);
      fresh.push(performance.now() - started);
    }
    console.log(`${'freshness gauge read (api role, once a minute)'.padEnd(46)} p50 ${pct(fresh, 50).toFixed(2).padStart(7)} ms  (not a request: 20 reads)`);
  } finally {
    await app.close();
    await hello.close();
    await closeServices(services);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
