import mqtt from 'mqtt';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { addConsumer, type TestConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { seedConsent, startReceiver, type Receiver } from '../push/helpers.ts';
import { deployment, type Deployment } from './service-env.ts';
import { eventually, ROOT, startService, waitForHttp, type ServiceProcess } from './service-process.ts';

const S08 = 'V1RTUALV1N0000S08';
const MQTT_PASSWORD = 'virtual-password-of-the-single-roles-test';

/*
 * Every role alone in its own process, each started with its documented command: the embedded
 * broker (npm run start:broker), the pipeline (npm run worker), the push workers (npm run
 * start:push) and the API (npm run start:api). A crash event published to the broker process
 * is queued there, harmonized and fanned out by the pipeline process, and delivered by the
 * push process to the webhook registered through the API process.
 */
describe('each role alone in its own process', () => {
  let d: Deployment;
  let t: TestServices;
  let receiver: Receiver;
  let consumer: TestConsumer;
  const procs: ServiceProcess[] = [];
  let api: string;
  let mqttPort: number;
  let readyUrls: string[];

  beforeAll(async () => {
    d = deployment(inject('redisUrl'), { PUSH_ALLOW_PRIVATE_TARGETS: 'true', VIRTUAL_ACTIVATION_DELAY_MS: '100', MQTT_PASSWORD_VIRTUAL: MQTT_PASSWORD, LOG_LEVEL: 'warn' });
    receiver = await startReceiver();
    const [apiPort, brokerPort, probes] = [await freePort(), await freePort(), [await freePort(), await freePort(), await freePort()]];
    mqttPort = brokerPort;
    api = `http://127.0.0.1:${apiPort}`;
    procs.push(startService('broker', { script: 'start:broker', env: d.env({ MQTT_PORT: String(brokerPort), PROBE_PORT: String(probes[0]) }) }));
    procs.push(startService('pipeline', { script: 'worker', env: d.env({ PROBE_PORT: String(probes[1]) }) }));
    procs.push(startService('push', { script: 'start:push', env: d.env({ PROBE_PORT: String(probes[2]) }) }));
    procs.push(startService('api', { script: 'start:api', env: d.env({ PORT: String(apiPort) }) }));
    readyUrls = [...probes.map((p) => `http://127.0.0.1:${p}/ready`), `${api}/ready`];
    await Promise.all(readyUrls.map((u, i) => waitForHttp(u, 200, 45_000, procs[i])));
    t = await createTestServices({ env: d.env() });
    consumer = await addConsumer(t, { dataItems: ['accidentautomatic', 'mileage'] });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await receiver?.close();
    await t?.cleanup();
    d?.cleanup();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...consumer.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('each process reports ready on its probe, with the checks of its own role', async () => {
    const checks = await Promise.all(
      readyUrls.map(async (u) => Object.keys(((await (await fetch(u)).json()) as { checks: Record<string, string> }).checks).sort()),
    );
    const common = ['redis', 'redis-policy', 'store'];
    // The broker, the API and the pipeline (which polls kestrel's API) take raw messages in, so
    // their readiness includes the ingest queue.
    const ingesting = [...common, 'ingest-queue'].sort();
    expect(checks).toEqual([[...ingesting, 'mqtt-broker'].sort(), ingesting, common, ingesting]);
  });

  it('a crash published to the broker process reaches the webhook through the pipeline and push processes', async () => {
    expect((await call('PUT', '/management/v1/vehicles', { action: 'activate', vins: [S08] })).status).toBe(202);
    await eventually(async () => (await call('GET', `/management/v1/vehicles/${S08}`)).body.status === 'ACTIVATED', 'S08 activated by the pipeline process', 15_000, 300);
    await seedConsent(t.services, consumer.consumerId, consumer.subscriptionId, S08);
    const put = await call('PUT', '/push/v1/webhook', { url: receiver.url });
    expect(put.status).toBe(200);

    const publisher = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { username: 'virtual', password: MQTT_PASSWORD, reconnectPeriod: 0 });
    const occurredAt = new Date().toISOString();
    const crash = { ...(JSON.parse(readFileSync(join(ROOT, 'adapters', 'virtual', 'fixtures', 'virtual.event.crash.json'), 'utf8')) as object), occurredAt, messageId: `${S08}:crash:${occurredAt}` };
    await publisher.publishAsync(`virtual/v1/${S08}/event`, JSON.stringify(crash), { qos: 1 });
    await publisher.endAsync();

    const [req] = await receiver.waitFor(1, 20_000);
    const payload = new Webhook(put.body.signingSecret as string).verify(req!.body, req!.headers as Record<string, string>) as { subscriptionId: string };
    expect(payload.subscriptionId).toBe(consumer.subscriptionId);
    const [stored] = await t.services.store.dataPoints.latest([S08], ['accidentautomatic']);
    expect(stored?.manufacturer).toBe('virtual');
  }, 40_000);
});
