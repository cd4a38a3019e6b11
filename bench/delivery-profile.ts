/**
 * Profiling aid for the delivery hot path: seeds like bench/delivery.ts and times N in-process
 * requests (app.inject, no sockets), printing the mean per request. Run with --cpu-prof to see
 * where the time goes: `npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/delivery-profile.ts`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { seedBench, BENCH_VINS } from './delivery-seed.ts';
import { BENCH_ITEM_NAMES } from './delivery-payloads.ts';
import { helloWorld } from './hello-world.ts';
import { routeContexts } from '../src/main/route-contexts.ts';

const N = Number(process.env.PROFILE_REQUESTS ?? 2000);
const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
const redisUrl = process.env.REDIS_URL ?? redis!.url;
const dataDir = mkdtempSync(join(tmpdir(), 'cvd-prof-'));
const config = loadConfig({
  DATA_DIR: dataDir, REDIS_URL: redisUrl, QUEUE_PREFIX: `prof${randomUUID().slice(0, 6)}`, LOG_LEVEL: 'warn',
  DEMO_SEED: 'false', SIMULATOR: 'off', RATE_LIMIT_SUBSCRIPTION_MAX: '100000000', RATE_LIMIT_VEHICLE_MAX: '100000000',
});
const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
const headers = await seedBench(services);
const app = await buildApp(services, routeContexts(services));
const payload = { version: '1.0', vehicles: BENCH_VINS.map((value) => ({ identifier: { type: 'VIN', value } })), dataItems: BENCH_ITEM_NAMES };
for (let i = 0; i < 200; i++) await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers, payload });
const hello = helloWorld();
for (let i = 0; i < 200; i++) await hello.inject({ method: 'GET', url: '/' });
// CPU time (user + system) per request is steadier than wall time on a shared machine.
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
let c0 = process.cpuUsage();
let h0 = performance.now();
for (let i = 0; i < N; i++) await hello.inject({ method: 'GET', url: '/' });
const helloCpu = cpuMs(c0) / N;
console.log(`hello-world: ${((performance.now() - h0) / N).toFixed(3)} ms wall, ${helloCpu.toFixed(3)} ms CPU per request`);
c0 = process.cpuUsage();
h0 = performance.now();
for (let i = 0; i < N; i++) await app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers, payload });
const deliveryCpu = cpuMs(c0) / N;
console.log(`delivery:    ${((performance.now() - h0) / N).toFixed(3)} ms wall, ${deliveryCpu.toFixed(3)} ms CPU per request (${N} sequential in-process requests)`);
console.log(`CPU ratio:   delivery costs ${(deliveryCpu / helloCpu).toFixed(1)} x hello-world`);
await app.close();
await closeServices(services);
await redis?.stop();
rmSync(dataDir, { recursive: true, force: true });
