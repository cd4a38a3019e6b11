import mqtt from 'mqtt';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HARMONIZE_QUEUE } from '../../src/queues/harmonize-job.ts';
import { freePort } from '../helpers/free-port.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import type { Store } from '../../src/store/contract.ts';
import { ITEMS_PER_TELEMETRY, telemetryBody } from '../ops/raw-messages.ts';
import { borealisRecord, borealisRequest, deployment, POINTS_PER_BOREALIS_RECORD, type Deployment } from '../ops/service-env.ts';
import { eventually, startService, waitForHttp, type ServiceProcess } from '../ops/service-process.ts';
import { openTestQueue } from '../helpers/queues.ts';

const HTTP_BATCHES = 40;
const RECORDS_PER_BATCH = 10;
const MQTT_MESSAGES = 300;
const MQTT_PASSWORD = 'virtual-password-of-the-redis-restart-test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Recovery from a Redis outage mid-stream, by fault injection: Redis (AOF, fsync always, its own dir) is SIGKILLed in the
 * middle of ingestion over both transports and restarted on the same port and dir. An API
 * process (HTTP ingest), a broker process (embedded MQTT) and a worker process keep running.
 * Manufacturers behave as the contract tells them: an HTTP batch not answered 202 is sent again,
 * an MQTT QoS 1 publish without PUBACK is re-sent by the client on reconnect. At the end every
 * message is stored exactly once and nothing is quarantined.
 */
describe('Redis killed and restarted under load', () => {
  let redis: PrivateRedis | undefined;
  let redisDir: string | undefined;
  let d: Deployment | undefined;
  let store: Store | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await store?.close();
    await redis?.stop();
    d?.cleanup();
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
    redis = d = store = redisDir = undefined;
  });

  it('loses and duplicates nothing that was acknowledged (202 or PUBACK)', async () => {
    redisDir = mkdtempSync(join(tmpdir(), 'cvd-redis-aof-'));
    redis = await startPrivateRedis({ dir: redisDir, appendfsync: 'always' });
    const redisPort = redis.port;
    d = deployment(redis.url, { PIPELINE_BATCH_SIZE: '50', MQTT_PASSWORD_VIRTUAL: MQTT_PASSWORD, LOG_LEVEL: 'warn' });
    const [apiPort, mqttPort, brokerProbe, workerProbe] = [await freePort(), await freePort(), await freePort(), await freePort()];
    procs.push(startService('api', { env: d.env({ ROLES: 'api', PORT: String(apiPort) }) }));
    procs.push(startService('broker', { env: d.env({ ROLES: 'broker', MQTT_PORT: String(mqttPort), PROBE_PORT: String(brokerProbe) }) }));
    procs.push(startService('worker', { env: d.env({ ROLES: 'pipeline', PROBE_PORT: String(workerProbe) }) }));
    const readyUrls = [`http://127.0.0.1:${apiPort}/ready`, `http://127.0.0.1:${brokerProbe}/ready`, `http://127.0.0.1:${workerProbe}/ready`];
    await Promise.all(readyUrls.map((u, i) => waitForHttp(u, 200, 30_000, procs[i])));

    let refusedHttp = 0;
    let httpSent = 0;
    const base = 1_795_000_000;
    const sendHttp = async (batch: number) => {
      const records = Array.from({ length: RECORDS_PER_BATCH }, (_, k) => {
        const n = batch * RECORDS_PER_BATCH + k;
        return borealisRecord(`BRLFAULT${String(n % 25).padStart(9, '0')}`, base + n);
      });
      for (;;) {
        const { body, headers } = borealisRequest(records);
        try {
          const res = await fetch(`http://127.0.0.1:${apiPort}/ingest/v1/borealis`, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
          await res.arrayBuffer();
          if (res.status === 202) break;
          expect(res.status).toBe(503);
        } catch {
          // Connection trouble: as good as a 503.
        }
        refusedHttp++;
        await sleep(200);
      }
      httpSent++;
    };
    const http = (async () => {
      for (let b = 0; b < HTTP_BATCHES; b++) {
        await sendHttp(b);
        await sleep(80);
      }
    })();

    const publisher = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, {
      username: 'virtual',
      password: MQTT_PASSWORD,
      clientId: 'redis-restart-publisher',
      clean: false,
      reconnectPeriod: 200,
    });
    let mqttCloses = 0;
    publisher.on('close', () => mqttCloses++);
    publisher.on('error', () => {});
    await new Promise<void>((resolve) => publisher.once('connect', () => resolve()));
    let mqttSent = 0;
    let mqttRefused = 0;
    // A publish either gets its PUBACK (the promise resolves) or fails (mqtt.js drops publishes
    // queued during a reconnect when that connection closes too): then the sender sends it again.
    const publish = async (i: number) => {
      const m = telemetryBody(i);
      for (;;) {
        try {
          await publisher.publishAsync(m.topic, m.body, { qos: 1 });
          return;
        } catch {
          mqttRefused++;
          await sleep(200);
        }
      }
    };
    const acks: Promise<void>[] = [];
    const mqttRun = (async () => {
      for (let i = 0; i < MQTT_MESSAGES; i++) {
        acks.push(publish(i));
        mqttSent++;
        await sleep(10);
      }
    })();

    // Kill Redis a third of the way in; it is back 1.5 s later, with its AOF.
    await eventually(() => httpSent >= HTTP_BATCHES / 3 && mqttSent >= MQTT_MESSAGES / 3, 'a third sent', 30_000, 10);
    redis.process.kill('SIGKILL');
    await new Promise((r) => redis!.process.once('exit', r));
    await sleep(1500);
    redis = await startPrivateRedis({ dir: redisDir, port: redisPort, appendfsync: 'always' });
    const restartedAt = Date.now();

    await http;
    await mqttRun;
    await Promise.all(acks);
    publisher.end(true);
    // The fault did hit the senders.
    expect(refusedHttp + mqttCloses + mqttRefused).toBeGreaterThan(0);

    store = await d.store();
    const expected = HTTP_BATCHES * RECORDS_PER_BATCH * POINTS_PER_BOREALIS_RECORD + MQTT_MESSAGES * ITEMS_PER_TELEMETRY;
    await eventually(async () => (await store!.dataPoints.count()) >= expected, `${expected} points`, 90_000, 250);
    console.info(
      `redis-restart: HTTP batches re-sent ${refusedHttp}, MQTT connections closed ${mqttCloses}, publishes re-sent ${mqttRefused}; ` +
        `all stored ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after Redis was back`,
    );
    await sleep(1000);
    expect(await store.dataPoints.count()).toBe(expected);
    expect(await store.quarantine.count()).toBe(0);
    const queue = openTestQueue({ redisUrl: redis.url, prefix: d.config().QUEUE_PREFIX }, HARMONIZE_QUEUE);
    expect(await queue.getFailedCount()).toBe(0);
    await queue.close();
    for (const p of procs) expect(p.child.exitCode, `${p.name} still runs`).toBeNull();
  }, 120_000);
});
