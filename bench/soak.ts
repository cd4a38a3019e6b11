/**
 * `npm run soak [-- --minutes 10] [--max <msg/s> | --rate <msg/s>] [--sample-s 30]`
 *
 * Keeps half of the maximum ingest rate for a while and reports memory over time and any loss
 * (a leak or a lost message shows only over time). The scaled-out topology of docs/operations.md, each part its own process
 * started as `npm start` starts it (`node --import tsx src/server.ts` with ROLES): a private
 * Redis (AOF), the embedded broker (ROLES=broker), two workers (ROLES=pipeline,push), one API
 * (ROLES=api) answering a catalog request every second, and a publisher process sending the
 * virtual manufacturer's full telemetry message (30 data items) over MQTT at QoS 1.
 *
 * The maximum: `--max` if given; else measured first, 30 s of publishing above what the
 * workers can take, counting what gets stored. `--rate` sets the soak rate directly.
 * Loss: messages acknowledged (PUBACK) minus messages stored, once the backlog has drained.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { bullConnection } from '../src/queues/bull-connection.ts';
import { HARMONIZE_QUEUE } from '../src/queues/harmonize-job.ts';
import { bullQueueName } from '../src/queues/keys.ts';
import { freePort } from '../src/main/free-port.ts';
import { startPrivateRedis } from '../src/main/private-redis.ts';
import { openStore } from '../src/store/open-store.ts';
import { startService, waitForHttp, type ServiceProcess } from '../test/ops/service-process.ts';
import { forkChild, takeCounts } from './bench-child.ts';
import { ITEMS_PER_MESSAGE } from './ingest-message.ts';
import { cliOptions, fmt, rssMiB, sleep } from './soak-probe.ts';

const opts = cliOptions(process.argv.slice(2));
const MINUTES = Number(opts.get('minutes') ?? 10);
const SAMPLE_S = Number(opts.get('sample-s') ?? 30);
const PASSWORD = 'soak-virtual-password';

interface PublisherTake { sent: number; acked: number }

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cvd-soak-'));
  const redis = await startPrivateRedis({ dir: join(dir, 'redis') });
  const [apiPort, mqttPort, brokerProbe, probe1, probe2] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const prefix = `soak${randomUUID().slice(0, 6)}`;
  const base = {
    DATA_DIR: join(dir, 'data'), REDIS_URL: redis.url, QUEUE_PREFIX: prefix, SECRET_KEY: randomUUID() + randomUUID(),
    HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_SEED: 'false', SIMULATOR: 'off', MQTT_PASSWORD_VIRTUAL: PASSWORD, ADMIN_TOKEN: 'soak-admin-token-0001',
  };
  const procs: ServiceProcess[] = [
    startService('broker', { env: { ...base, ROLES: 'broker', MQTT_PORT: String(mqttPort), PROBE_PORT: String(brokerProbe) } }),
    startService('worker-1', { env: { ...base, ROLES: 'pipeline,push', PROBE_PORT: String(probe1) } }),
    startService('worker-2', { env: { ...base, ROLES: 'pipeline,push', PROBE_PORT: String(probe2) } }),
    startService('api', { env: { ...base, ROLES: 'api', PORT: String(apiPort) } }),
  ];
  // Whatever happens, no process of this run outlives it.
  const stopAll = () => {
    for (const p of procs) p.signal('SIGKILL');
    redis.process.kill('SIGKILL');
  };
  process.once('exit', stopAll);
  const ready = [brokerProbe, probe1, probe2, apiPort].map((p) => `http://127.0.0.1:${p}/ready`);
  await Promise.all(ready.map((u, i) => waitForHttp(u, 200, 60_000, procs[i])));
  const publisher = await forkChild('ingest-publisher.ts', { BROKER_URL: `mqtt://127.0.0.1:${mqttPort}`, MQTT_USERNAME: 'virtual', MQTT_PASSWORD: PASSWORD, CONNECTIONS: '8' });
  process.once('exit', () => publisher.kill('SIGKILL'));
  const pids = new Map<string, number>([['redis', redis.process.pid!], ['publisher', publisher.pid!]]);
  for (const p of procs) pids.set(p.name, await p.serverPid());

  const store = await openStore({ MONGO_URL: undefined, MONGO_DB: 'cvd', DATA_DIR: base.DATA_DIR });
  const queue = new Queue(bullQueueName(prefix, HARMONIZE_QUEUE, 0), { connection: bullConnection(redis.url, 'worker'), prefix });
  const storedMessages = async () => (await store.dataPoints.count()) / ITEMS_PER_MESSAGE;
  const backlog = async () => {
    const c = await queue.getJobCounts('waiting', 'active', 'delayed');
    return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0);
  };
  const drain = async (limitMs: number) => {
    const until = Date.now() + limitMs;
    while (Date.now() < until && (await backlog()) > 0) await sleep(500);
  };
  let sent = 0;
  let acked = 0;
  const take = async () => {
    const t = await takeCounts<PublisherTake>(publisher);
    sent += t.sent;
    acked += t.acked;
  };

  // The maximum, unless given: publish faster than the workers can store for 30 s.
  let max = Number(opts.get('max') ?? NaN);
  const rateOpt = Number(opts.get('rate') ?? NaN);
  if (Number.isNaN(max) && Number.isNaN(rateOpt)) {
    console.log('measuring the maximum ingest rate (30 s above capacity) ...');
    publisher.send({ cmd: 'rate', rate: 3000 });
    await sleep(10_000);
    const s0 = await storedMessages();
    const t0 = Date.now();
    await sleep(20_000);
    max = ((await storedMessages()) - s0) / ((Date.now() - t0) / 1000);
    publisher.send({ cmd: 'rate', rate: 0 });
    await drain(300_000);
  }
  const rate = Number.isNaN(rateOpt) ? Math.round(max / 2) : rateOpt;
  await take();
  const warmupSent = sent;
  const warmupAcked = acked;
  console.log(`soak: ${rate} msg/s (${Number.isNaN(max) ? 'given' : `50 % of the ${max.toFixed(0)} msg/s maximum`}) = ${rate * ITEMS_PER_MESSAGE} items/s for ${MINUTES} min; ${ITEMS_PER_MESSAGE} items per message`);
  const names = [...pids.keys()];
  console.log(`${'min'.padStart(5)} ${'acked/s'.padStart(8)} ${'stored/s'.padStart(8)} ${'backlog'.padStart(7)}  RSS MiB: ${names.map((n) => n.padStart(9)).join(' ')}`);

  const rss = () => new Map(names.map((n) => [n, rssMiB(pids.get(n)!)]));
  const first = rss();
  let firstAtSpeed: Map<string, number> | undefined;
  // The API process serves a catalog read every second meanwhile, so its memory is that of a
  // process at work, not of an idle one.
  const reads = setInterval(() => void fetch(`http://127.0.0.1:${apiPort}/catalog/v1/data-items`).then((r) => r.arrayBuffer(), () => undefined), 1000);
  publisher.send({ cmd: 'rate', rate });
  const started = Date.now();
  let lastStored = await storedMessages();
  let lastAcked = acked;
  let lastAt = started;
  while (Date.now() - started < MINUTES * 60_000) {
    await sleep(Math.min(SAMPLE_S * 1000, MINUTES * 60_000 - (Date.now() - started)));
    await take();
    const now = Date.now();
    const stored = await storedMessages();
    const dt = (now - lastAt) / 1000;
    const r = rss();
    firstAtSpeed ??= r;
    console.log(`${fmt((now - started) / 60_000, 5)} ${fmt((acked - lastAcked) / dt, 8, 0)} ${fmt((stored - lastStored) / dt, 8, 0)} ${String(await backlog()).padStart(7)}           ${names.map((n) => fmt(r.get(n)!, 9)).join(' ')}`);
    lastStored = stored;
    lastAcked = acked;
    lastAt = now;
  }
  clearInterval(reads);
  publisher.send({ cmd: 'rate', rate: 0 });
  await sleep(1000);
  await take();
  const end = rss();
  await drain(300_000);
  await sleep(2000);
  const stored = await storedMessages();
  const quarantined = await store.quarantine.count();
  const soakAcked = acked - warmupAcked;

  console.log('\nsummary');
  console.log(`  rate: target ${rate} msg/s; acknowledged ${(soakAcked / (MINUTES * 60)).toFixed(0)} msg/s over ${MINUTES} min (${soakAcked} messages, ${(soakAcked * ITEMS_PER_MESSAGE).toLocaleString('en')} items)`);
  console.log(`  messages: sent ${sent}, acknowledged ${acked}, stored ${stored} (incl. ${warmupAcked} acknowledged while measuring the maximum), quarantined ${quarantined}`);
  console.log(`  lost (acknowledged but not stored): ${acked - stored}; sent but never acknowledged: ${sent - acked} (of ${sent - warmupSent} sent during the soak)`);
  console.log('  RSS MiB        start  at speed      end');
  for (const n of names) console.log(`  ${n.padEnd(11)} ${fmt(first.get(n)!, 8)} ${fmt(firstAtSpeed?.get(n) ?? NaN, 9)} ${fmt(end.get(n)!, 8)}`);

  publisher.send({ cmd: 'stop' });
  await queue.close();
  await store.close();
  const exits = await Promise.all(procs.map(async (p) => `${p.name} ${JSON.stringify(await p.stop(30_000))}`));
  console.log(`  graceful stop (SIGTERM): ${exits.join(', ')}`);
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
