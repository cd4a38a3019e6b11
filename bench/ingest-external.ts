/**
 * `npm run bench:ingest -- --broker external`: the external-broker path beside the embedded one,
 * in the same run. Raw telemetry published over MQTT (QoS 1) at rising rates:
 *
 * - embedded: this process runs the embedded broker (the `broker` role; it queues each publish
 *   before its PUBACK), BENCH_WORKERS pipeline processes harmonize;
 * - external: a private Mosquitto (persistence on, as deploy/mosquitto), BENCH_WORKERS pipeline
 *   processes each subscribed through one MQTT 5 shared subscription ($share/bench/...) and
 *   harmonizing, as `npm run worker` runs them with MQTT_SHARE_GROUP.
 *
 * One more process publishes. Each path gets a fresh store file and queue prefix. Prints per
 * rate: acknowledged and stored msg/s, items/s, messages per harmonize job, p50/p99
 * publish-to-stored; then each path's maximum, messages per job at that maximum, p99 at half of
 * it, and the external path's items/s as a share of the embedded path's.
 *
 * Settings: BENCH_WORKERS (default 3), BENCH_STEP_S (default 6), BENCH_RATES (msg/s, default
 * 500,1000,1500,2000,2500,3000,3500,4000), BENCH_CONNECTIONS (publisher connections, default
 * 8), PIPELINE_CONCURRENCY (default 2), REDIS_URL (default: a private redis-server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { mqttCredentials } from '../src/adapters/secrets.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedBroker } from '../src/transports/mqtt/embedded-broker.ts';
import { createLogger } from '../src/logger.ts';
import { closeServices, createServices } from '../src/main/create-services.ts';
import { freePort } from '../src/main/free-port.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { forkChild, takeCounts } from './bench-child.ts';
import { ITEMS_PER_MESSAGE } from './ingest-message.ts';

const STEP_S = Number(process.env.BENCH_STEP_S ?? 6);
const RATES = (process.env.BENCH_RATES ?? '500,1000,1500,2000,2500,3000,3500,4000').split(',').map(Number);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const FULL_LOAD_RATE = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

interface MemberTake { messages: number; items: number; latencies: number[]; jobs: number }
interface PublisherTake { sent: number; acked: number }
interface Step { rate: number; acked: number; msgs: number; items: number; perJob: number; p50: number; p99: number }
interface FullLoad { msgs: number; items: number; perJob: number; seconds: number }
interface PathResult { best: Step; half: Step; full: FullLoad }

/** The environment of one path's processes: its own store file and queue prefix. */
function pathEnv(redisUrl: string): { env: Record<string, string>; cleanup: () => void } {
  const dataDir = mkdtempSync(join(tmpdir(), 'cvd-bench-ingest-'));
  return {
    env: {
      DATA_DIR: dataDir,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `benchingest${randomUUID().slice(0, 6)}`,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      DEMO_SEED: 'false',
      SIMULATOR: 'off',
      MQTT_PORT: '0',
      PIPELINE_CONCURRENCY: process.env.PIPELINE_CONCURRENCY ?? '2',
      INGEST_MAX_FUTURE_S: '315360000',
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A Mosquitto of its own on a free port, configured for throughput as deploy/mosquitto is for safety. */
async function startMosquitto(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cvd-bench-mosquitto-'));
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence true',
      `persistence_location ${dir}/`,
      'autosave_interval 10',
      'max_queued_messages 1000000',
      'max_queued_bytes 1073741824',
      'max_packet_size 300000',
      `user ${userInfo().username}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: 'ignore' });
  await sleep(300);
  if (child.exitCode !== null) throw new Error('mosquitto did not start (is it on PATH?)');
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Rising rates until the stored rate falls behind, then half the best: one path's figures. */
async function measure(label: string, publisher: ChildProcess, members: ChildProcess[]): Promise<PathResult> {
  const takeAll = () => Promise.all(members.map((m) => takeCounts<MemberTake>(m)));
  async function step(rate: number): Promise<Step> {
    publisher.send({ cmd: 'rate', rate });
    await sleep(1500);
    await takeCounts<PublisherTake>(publisher);
    await takeAll();
    const t0 = performance.now();
    await sleep(STEP_S * 1000);
    const dt = (performance.now() - t0) / 1000;
    const pub = await takeCounts<PublisherTake>(publisher);
    const takes = await takeAll();
    publisher.send({ cmd: 'rate', rate: 0 });
    const messages = takes.reduce((a, t) => a + t.messages, 0);
    const jobs = takes.reduce((a, t) => a + t.jobs, 0);
    const lat = takes.flatMap((t) => t.latencies).sort((a, b) => a - b);
    const r: Step = {
      rate,
      acked: pub.acked / dt,
      msgs: messages / dt,
      items: takes.reduce((a, t) => a + t.items, 0) / dt,
      perJob: jobs ? messages / jobs : 0,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
    };
    console.log(
      `${label}  rate ${String(rate).padStart(5)} msg/s: acked ${r.acked.toFixed(0).padStart(5)}/s  stored ${r.msgs.toFixed(0).padStart(5)} msg/s = ${r.items.toFixed(0).padStart(6)} items/s  ${r.perJob.toFixed(1).padStart(6)} msg/job  p50 ${String(r.p50).padStart(5)} ms  p99 ${String(r.p99).padStart(5)} ms`,
    );
    // Drain (the backlog may sit in the broker's sessions as well as in the queue) before the next rate.
    const deadline = Date.now() + 30_000;
    let quiet = 0;
    while (Date.now() < deadline && quiet < 2) {
      await sleep(500);
      quiet = (await takeAll()).some((t) => t.messages > 0) ? 0 : quiet + 1;
    }
    return r;
  }
  /**
   * Full load: the publisher sends FULL_LOAD_RATE msg/s for STEP_S seconds, more than the pipeline
   * takes, so a backlog builds (in the queue, or in the broker's sessions); measured from the
   * start until the last message is stored. What the pipeline does flat out, and how full its
   * jobs are then.
   */
  async function fullLoad(): Promise<FullLoad> {
    await takeAll();
    const t0 = performance.now();
    // Far beyond what the pipeline takes, yet below one message per VIN and millisecond: the
    // bench's 2,000 VINs each send theirs at a time of its own (the store keeps one point per
    // VIN, item and time, so same-millisecond messages of one VIN would be stored once).
    publisher.send({ cmd: 'rate', rate: FULL_LOAD_RATE });
    await sleep(STEP_S * 1000);
    publisher.send({ cmd: 'rate', rate: 0 });
    let messages = 0;
    let items = 0;
    let jobs = 0;
    let last = performance.now();
    let quiet = 0;
    const deadline = Date.now() + 120_000;
    while (quiet < 4 && Date.now() < deadline) {
      const takes = await takeAll();
      const m = takes.reduce((a, t) => a + t.messages, 0);
      messages += m;
      items += takes.reduce((a, t) => a + t.items, 0);
      jobs += takes.reduce((a, t) => a + t.jobs, 0);
      if (m > 0) {
        last = performance.now();
        quiet = 0;
      } else quiet++;
      await sleep(500);
    }
    const seconds = (last - t0) / 1000;
    const r = { msgs: messages / seconds, items: items / seconds, perJob: jobs ? messages / jobs : 0, seconds };
    console.log(`${label}  full load: ${messages} messages stored in ${seconds.toFixed(1)} s = ${r.msgs.toFixed(0)} msg/s = ${r.items.toFixed(0)} items/s  ${r.perJob.toFixed(1)} msg/job`);
    return r;
  }
  const results: Step[] = [];
  for (const rate of RATES) {
    const r = await step(rate);
    results.push(r);
    if (r.msgs < rate * 0.9 || r.p99 > 5000) break;
  }
  const best = results.reduce((a, b) => (b.msgs > a.msgs ? b : a));
  const half = await step(Math.round(best.msgs / 2));
  const full = await fullLoad();
  return { best, half, full };
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.send({ cmd: 'stop' });
          setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
}

async function embeddedPath(redisUrl: string): Promise<PathResult> {
  const { env, cleanup } = pathEnv(redisUrl);
  const config = loadConfig(env);
  const services = await createServices(config, createLogger({ level: 'warn', pretty: false }), redisUrl);
  const broker = await startEmbeddedBroker(services, { port: 0 });
  const creds = mqttCredentials(config, services.adapters.get('virtual')!);
  const members = await Promise.all(Array.from({ length: WORKERS }, () => forkChild('ingest-member.ts', env)));
  const publisher = await forkChild('ingest-publisher.ts', { BROKER_URL: broker.url, MQTT_USERNAME: creds.username, MQTT_PASSWORD: creds.password, CONNECTIONS: String(CONNECTIONS) });
  try {
    return await measure('embedded', publisher, members);
  } finally {
    await stopAll([publisher, ...members]);
    await broker.close();
    await closeServices(services);
    cleanup();
  }
}

async function externalPath(redisUrl: string): Promise<PathResult> {
  const { env, cleanup } = pathEnv(redisUrl);
  const mosquitto = await startMosquitto();
  const members = await Promise.all(
    Array.from({ length: WORKERS }, (_, i) => forkChild('ingest-member.ts', { ...env, MQTT_URL: mosquitto.url, MQTT_SHARE_GROUP: 'bench', MQTT_CLIENT_ID: `bench-member-${i + 1}` })),
  );
  const publisher = await forkChild('ingest-publisher.ts', { BROKER_URL: mosquitto.url, MQTT_USERNAME: 'virtual', MQTT_PASSWORD: 'unused', CONNECTIONS: String(CONNECTIONS) });
  try {
    return await measure('external', publisher, members);
  } finally {
    await stopAll([publisher, ...members]);
    await mosquitto.stop();
    cleanup();
  }
}

export async function runExternalBench(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startPrivateRedis();
  const redisUrl = process.env.REDIS_URL ?? redis!.url;
  const probe = loadConfig({ PIPELINE_BATCH_SIZE: process.env.PIPELINE_BATCH_SIZE ?? '200' });
  console.log(
    `bench:ingest --broker external  message: virtual telemetry (electric, full) = ${ITEMS_PER_MESSAGE} items; ${WORKERS} pipeline process(es), concurrency ${process.env.PIPELINE_CONCURRENCY ?? '2'}, batch ${probe.PIPELINE_BATCH_SIZE}, Receive Maximum ${probe.MQTT_RECEIVE_MAXIMUM}, ${STEP_S} s per rate`,
  );
  const embedded = await embeddedPath(redisUrl);
  const external = await externalPath(redisUrl);
  const line = (label: string, r: PathResult) =>
    `  ${label}: full load ${r.full.msgs.toFixed(0)} msg/s = ${r.full.items.toFixed(0)} items/s, ${r.full.perJob.toFixed(1)} messages per job; ` +
    `sustained max ${r.best.msgs.toFixed(0)} msg/s = ${r.best.items.toFixed(0)} items/s (${r.best.perJob.toFixed(1)} msg/job); p99 at half (${r.half.rate} msg/s) ${r.half.p99} ms, p50 ${r.half.p50} ms`;
  console.log('\nsummary');
  console.log(line('embedded broker', embedded));
  console.log(line('external broker (Mosquitto, shared subscription)', external));
  console.log(`  external / embedded items/s: full load ${((external.full.items / embedded.full.items) * 100).toFixed(0)} %, sustained max ${((external.best.items / embedded.best.items) * 100).toFixed(0)} % (target >= 80 %)`);
  console.log(`  external messages per job at full load: ${external.full.perJob.toFixed(1)} (target >= 50)`);
  await redis?.stop();
  process.exit(0);
}
