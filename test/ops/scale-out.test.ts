import mqtt from 'mqtt';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { freePort } from '../helpers/free-port.ts';
import { startPrivateRedis, type PrivateRedis } from '../../src/main/private-redis.ts';
import type { Store } from '../../src/store/contract.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';
import { giveConsent, type Consumer } from './consent-over-http.ts';
import { startDeployMosquitto, type DeployMosquitto } from './deploy-mosquitto.ts';
import { startRoundRobin, type RoundRobin } from './round-robin.ts';
import { eventually, ROOT, startService, waitForHttp, type ServiceProcess } from './service-process.ts';

/*
 * Scaling out as docs/operations.md describes: two API processes and two worker processes, started with the documented
 * commands (npm run start:api / start:worker / start:simulator) against one Redis, one SQLite
 * DATA_DIR (WAL) and an external mosquitto configured as deploy/mosquitto, serve one subscription
 * consistently. A round-robin load balancer (PUBLIC_URL) sends every request to the next API
 * process, so a user's consent flow hops between them.
 */
const V1 = 'V1RTUALV1N0000001';
const S08 = 'V1RTUALV1N0000S08';
const ITEMS = ['mileage', 'batteryvoltage', 'vehiclespeed', 'accidentautomatic', 'crashseverity'];
const REDIRECT = 'https://app.example.com/cb';
const ADMIN = 'ops-admin-token-0001';
const RATE_MAX = 40;
const BOREALIS_SECRET = 'borealis-ingest-secret-for-the-scale-out-test';

describe('scaled out: two API processes, two worker processes, the simulator', () => {
  let redis: PrivateRedis;
  let mosquitto: DeployMosquitto;
  let lb: RoundRobin;
  let receiver: Receiver;
  let store: Store;
  let dataDir: string;
  const procs: ServiceProcess[] = [];
  const api: string[] = [];
  let consumer: Consumer;
  let webhookSecret: string;

  async function call<T = Record<string, unknown>>(origin: string, c: Consumer | null, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = c ? { 'x-api-key': c.apiKey, 'x-subscription-id': c.subscriptionId } : { authorization: `Bearer ${ADMIN}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T };
  }

  async function provision(): Promise<Consumer> {
    const created = await call(lb.origin, null, 'POST', '/admin/v1/consumers', { name: 'Fleet App GmbH' });
    expect(created.status).toBe(201);
    const sub = await call(lb.origin, null, 'POST', '/admin/v1/subscriptions', {
      consumerId: created.body.consumerId,
      dataItems: ITEMS,
      allowedRedirectUrls: [REDIRECT],
    });
    expect(sub.status).toBe(201);
    return { consumerId: created.body.consumerId as string, apiKey: created.body.apiKey as string, subscriptionId: sub.body.subscriptionId as string };
  }

  beforeAll(async () => {
    redis = await startPrivateRedis();
    mosquitto = await startDeployMosquitto();
    receiver = await startReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'cvd-scale-'));
    const lbPort = await freePort();
    const ports = [await freePort(), await freePort()];
    const probes = [await freePort(), await freePort(), await freePort()];
    const base = {
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `scale${randomUUID().slice(0, 6)}`,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      ADMIN_TOKEN: ADMIN,
      PUBLIC_URL: `http://127.0.0.1:${lbPort}`,
      HOST: '127.0.0.1',
      MQTT_URL: mosquitto.ingestUrl,
      MQTT_CLIENT_ID: 'cvd-ingest-scale-test',
      MQTT_PASSWORD_VIRTUAL: mosquitto.passwords.virtual,
      INGEST_SECRET_BOREALIS: BOREALIS_SECRET,
      LOG_LEVEL: 'warn',
      DEMO_SEED: 'false',
      // Every process loads the virtual wing, as docker-compose.yml's do: the APIs serve the virtual
      // manufacturer's (simulated) authorization server, the workers know which VINs it has; only
      // the simulator process (below) runs the simulator role.
      SIMULATOR: 'on',
      PUSH_ALLOW_PRIVATE_TARGETS: 'true',
      VIRTUAL_ACTIVATION_DELAY_MS: '200',
      RATE_LIMIT_SUBSCRIPTION_MAX: String(RATE_MAX),
      PIPELINE_BATCH_MAX_WAIT_MS: '5',
    };
    for (const [i, port] of ports.entries()) {
      procs.push(startService(`api-${i + 1}`, { script: 'start:api', env: { ...base, PORT: String(port) } }));
      api.push(`http://127.0.0.1:${port}`);
    }
    // One worker subscribes to the external broker (one persistent session); both harmonize and push.
    procs.push(startService('worker-1', { script: 'start:worker', env: { ...base, MQTT_SUBSCRIBER: 'on', PROBE_PORT: String(probes[0]) } }));
    procs.push(startService('worker-2', { script: 'start:worker', env: { ...base, PROBE_PORT: String(probes[1]) } }));
    // The simulator starts once worker-1's persistent session exists at the broker (its readiness
    // includes the subscriber): a broker keeps QoS 1 messages only for a session it already knows,
    // and with a fixed clock the simulator publishes its catch-up minutes once, then stands still.
    const serviceUrls = [...api.map((a) => `${a}/ready`), ...probes.slice(0, 2).map((p) => `http://127.0.0.1:${p}/ready`)];
    await Promise.all(serviceUrls.map((u, i) => waitForHttp(u, 200, 45_000, procs[i])));
    procs.push(
      startService('simulator', {
        script: 'start:simulator',
        env: { ...base, SIM_CLOCK: 'fixed:2026-11-25T02:30:00Z', SIM_MAX_CATCHUP_MINUTES: '2', SIM_TICK_MS: '500', PROBE_PORT: String(probes[2]) },
      }),
    );
    await waitForHttp(`http://127.0.0.1:${probes[2]}/ready`, 200, 45_000, procs.at(-1));
    lb = await startRoundRobin(api, lbPort);
    store = await openStore({ MONGO_URL: undefined, MONGO_DB: 'cvd', DATA_DIR: dataDir });
    consumer = await provision();
  }, 90_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await lb?.close();
    await receiver?.close();
    await store?.close();
    await mosquitto?.stop();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('activation and consent work across processes: activated on one API, confirmed on the other, a replayed code refused by the first', async () => {
    const put = await call(api[0]!, consumer, 'PUT', '/management/v1/vehicles', { action: 'activate', vins: [V1, S08] });
    expect(put.status).toBe(202);
    // The activation worker (in a worker process) confirms; the other API sees it.
    await eventually(async () => {
      const list = await call<{ status: string }[]>(api[1]!, consumer, 'GET', '/management/v1/vehicles');
      return list.body.length === 2 && list.body.every((v) => v.status === 'ACTIVATED');
    }, 'both vehicles ACTIVATED', 15_000, 400);

    const flows = [await giveConsent(lb.origin, consumer, V1, REDIRECT), await giveConsent(lb.origin, consumer, S08, REDIRECT)];
    // The flow's requests went to both processes.
    expect(new Set(lb.served)).toEqual(new Set([0, 1]));
    const confirm = (origin: string, code: string) =>
      fetch(`${origin}/api/consent/provisioning/confirmation/${code}`, { method: 'POST', headers: { 'x-api-key': consumer.apiKey } });
    expect((await confirm(api[1]!, flows[0]!.code)).status).toBe(200);
    expect((await confirm(api[0]!, flows[0]!.code)).status).toBe(409);
    for (const origin of api) {
      const consents = await call(origin, consumer, 'GET', '/consent/v1/consents');
      expect(consents.status).toBe(200);
    }
  }, 30_000);

  it('both APIs deliver the same data, written by the simulator through mosquitto and the worker processes', async () => {
    await eventually(async () => (await store.dataPoints.latest([V1], ['mileage', 'batteryvoltage'])).length === 2, 'simulator data for V1', 60_000, 200);
    const request = { version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: V1 } }], dataItems: ['mileage', 'batteryvoltage', 'vehiclespeed'] };
    type Delivery = { inVehicleData: { identifier: unknown; response: Record<string, { dataPoint?: { timestamp: string } }> }[] };
    const [a, b] = await Promise.all(api.map((origin) => call<Delivery>(origin, consumer, 'POST', '/delivery/v1/in-vehicle', request)));
    expect(a!.status).toBe(200);
    expect(b!.status).toBe(200);
    expect(a!.body.inVehicleData).toEqual(b!.body.inVehicleData);
    const entry = a!.body.inVehicleData[0]!;
    expect(entry.identifier).toEqual({ type: 'VIN', value: V1 });
    expect(entry.response.mileage?.dataPoint?.timestamp).toMatch(/^2026-11-25T02:2[89]|^2026-11-25T02:30/);
  }, 90_000);

  it('the api role alone serves HTTP ingest: a signed batch sent to each API is stored by the workers', async () => {
    const record = JSON.parse(readFileSync(join(ROOT, 'adapters', 'borealis', 'fixtures', 'borealis.vehicle-status.json'), 'utf8')) as unknown;
    for (const origin of api) {
      const body = JSON.stringify({ batchId: randomUUID(), records: [record] });
      const res = await fetch(`${origin}/ingest/v1/borealis`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-borealis-signature': signBody(BOREALIS_SECRET, Math.floor(Date.now() / 1000), body) },
        body,
      });
      expect(res.status).toBe(202);
    }
    // The same record twice (once per API): stored once.
    const vin = 'BRLAU1EV0N1000001';
    await eventually(async () => (await store.dataPoints.latest([vin], ['mileage'])).length === 1, 'borealis mileage', 15_000, 200);
    const history = await store.dataPoints.history({ vin, item: 'mileage', limit: 100 });
    expect(history.items.length).toBeGreaterThan(0);
    expect(new Set(history.items.map((p) => p.timestampMs)).size).toBe(history.items.length);
  }, 30_000);

  it('the rate limit is one counter across both APIs', async () => {
    const limited = await provision();
    const hit = (i: number) => call(api[i % 2]!, limited, 'GET', '/management/v1/vehicles');
    // Fixed windows aligned to the clock: start well inside one.
    const first = await hit(0);
    const reset = Number(/t=(\d+)/.exec(first.headers.get('ratelimit') ?? '')?.[1]);
    let used = 1;
    if (reset < 8) {
      await new Promise((r) => setTimeout(r, (reset + 1) * 1000));
      used = 0;
    }
    const remaining: number[] = [];
    for (let i = used; i < RATE_MAX; i++) {
      const r = await hit(i);
      expect(r.status).toBe(200);
      remaining.push(Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
    }
    // Each answer, from either process, counts the requests of both.
    expect(remaining.at(-1)).toBe(0);
    expect(remaining).toEqual([...remaining].sort((x, y) => y - x));
    const over = await Promise.all([hit(0), hit(1)]);
    expect(over.map((r) => r.status)).toEqual([429, 429]);
    expect(over.every((r) => Number(r.headers.get('retry-after')) >= 1)).toBe(true);
  }, 90_000);

  it('a crash event reaches the webhook exactly once, though two push workers and two pipeline workers run', async () => {
    const put = await call(api[0]!, consumer, 'PUT', '/push/v1/webhook', { url: receiver.url });
    expect(put.status).toBe(200);
    webhookSecret = put.body.signingSecret as string;
    const publisher = await mqtt.connectAsync(mosquitto.url, { username: 'virtual', password: mosquitto.passwords.virtual, reconnectPeriod: 0 });
    const occurredAt = new Date().toISOString();
    const crash = {
      ...(JSON.parse(readFileSync(join(ROOT, 'adapters', 'virtual', 'fixtures', 'virtual.event.crash.json'), 'utf8')) as object),
      messageId: `${S08}:crash:${occurredAt}`,
      occurredAt,
    };
    await publisher.publishAsync(`virtual/v1/${S08}/event`, JSON.stringify(crash), { qos: 1 });
    await publisher.endAsync();

    const [req] = await receiver.waitFor(1, 20_000);
    const payload = new Webhook(webhookSecret).verify(req!.body, req!.headers as Record<string, string>) as {
      subscriptionId: string;
      inVehicleResponse: { inVehicleData: { identifier: { value: string }; response: Record<string, unknown> }[] };
    };
    expect(payload.subscriptionId).toBe(consumer.subscriptionId);
    expect(payload.inVehicleResponse.inVehicleData[0]!.identifier.value).toBe(S08);
    expect(Object.keys(payload.inVehicleResponse.inVehicleData[0]!.response)).toEqual(['accidentautomatic']);
    // Give a second delivery every chance to show up.
    await new Promise((r) => setTimeout(r, 2000));
    expect(receiver.requests).toHaveLength(1);
    for (const origin of api) {
      const deliveries = await call<{ item: string; status: string }[]>(origin, consumer, 'GET', '/push/v1/deliveries');
      expect(deliveries.body.map((d) => [d.item, d.status])).toEqual([['accidentautomatic', 'DELIVERED']]);
    }
  }, 40_000);

  it('every process ran without an error logged', () => {
    for (const p of procs) {
      const errors = p.lines.filter((l) => /"level":(50|60)/.test(l));
      expect(errors, `${p.name}:\n${errors.join('\n')}`).toEqual([]);
    }
  });
});
