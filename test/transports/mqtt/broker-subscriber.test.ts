import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { startExternalSubscriber } from '../../../src/transports/mqtt/broker-subscriber.ts';
import { buildApp } from '../../../src/app.ts';
import { freePort } from '../../helpers/free-port.ts';
import { startPrivateRedis, type PrivateRedis } from '../../../src/main/private-redis.ts';
import { electricTelemetryOf, fixture, harmonizeJobCount, startHarness, waitFor, type Harness } from '../../pipeline/harness.ts';
import { startMosquitto, type PrivateMosquitto } from '../../pipeline/mosquitto.ts';
import { routeContexts } from '../../../src/main/route-contexts.ts';

/** An external broker (MQTT_URL): a real mosquitto, the pipeline's persistent QoS 1 subscriber. */
describe('external MQTT broker (MQTT_URL)', () => {
  let h: Harness | undefined;
  let broker: PrivateMosquitto | undefined;
  let redis: PrivateRedis | undefined;
  let publisher: MqttClient | undefined;
  afterEach(async () => {
    publisher?.end(true);
    await h?.stop();
    await broker?.stop();
    await redis?.stop();
    h = broker = redis = publisher = undefined;
  });

  async function subscribe(harness: Harness, url: string, clientId?: string) {
    const sub = await startExternalSubscriber(harness.services, url, clientId === undefined ? {} : { clientId });
    await waitFor(() => sub.client.connected, 5_000, 'subscriber connected');
    // The SUBACK follows the CONNACK; a publish before it would find no subscription.
    await new Promise((r) => setTimeout(r, 200));
    return sub;
  }

  async function setUp(env: Record<string, string> = {}) {
    broker = await startMosquitto();
    h = await startHarness({ broker: false, env: { MQTT_URL: broker.url, ...env } });
    h.running.push(await subscribe(h, broker.url));
    publisher = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    return h;
  }

  it('stores a message published to the external broker as catalog-valid points with provenance', async () => {
    const { services } = await setUp();
    await publisher!.publishAsync('virtual/v1/V1RTUALV1N0000003/telemetry', fixture('virtual', 'virtual.telemetry.electric.json'), { qos: 1 });
    await waitFor(async () => (await services.store.dataPoints.count()) === 30, 10_000, '30 points');
    const points = await services.store.dataPoints.latest(['V1RTUALV1N0000003'], services.catalog.list().map((e) => e.technicalName));
    for (const p of points) {
      expect(services.catalog.validate(p.item, p.payload)).toEqual({ valid: true });
      expect(p.manufacturer).toBe('virtual');
      expect(p.mappingVersion).toMatch(/^telemetry\.jsonata@[0-9a-f]{12}$/);
    }
    expect(services.readiness.has('mqtt-subscriber')).toBe(true);
    await services.readiness.get('mqtt-subscriber')!();
  });

  it('quarantines a message whose body names another vehicle than its topic (VIN_MISMATCH), as the embedded broker does', async () => {
    const { services } = await setUp();
    await publisher!.publishAsync('virtual/v1/V1RTUALV1N0000003/telemetry', electricTelemetryOf('V1RTUALV1N0000004'), { qos: 1 });
    await waitFor(async () => (await services.store.quarantine.count()) === 1, 10_000, 'the message quarantined');
    const [entry] = (await services.store.quarantine.list({}, 10)).items;
    expect(entry).toMatchObject({ code: 'VIN_MISMATCH', vin: 'V1RTUALV1N0000003', topic: 'virtual/v1/V1RTUALV1N0000003/telemetry' });
    expect(await services.store.dataPoints.count()).toBe(0);
  });

  it('stores a message published at QoS 0 as well (best effort: no acknowledgement to withhold)', async () => {
    const { services } = await setUp();
    await publisher!.publishAsync('virtual/v1/V1RTUALV1N0000003/telemetry', fixture('virtual', 'virtual.telemetry.electric.json'), { qos: 0 });
    await waitFor(async () => (await services.store.dataPoints.count()) === 30, 10_000, '30 points from the QoS 0 publish');
  });

  it('does not acknowledge while the queue is down; the broker redelivers and the message is stored once', async () => {
    redis = await startPrivateRedis();
    const port = redis.port;
    const { services } = await setUp({ REDIS_URL: redis.url });
    await redis.stop();
    await publisher!.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', fixture('virtual', 'virtual.event.crash.json'), { qos: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await services.store.dataPoints.count()).toBe(0);
    redis = await startPrivateRedis({ port });
    await waitFor(async () => (await services.store.dataPoints.count()) === 10, 40_000, '10 points');
    await new Promise((r) => setTimeout(r, 500));
    expect(await services.store.dataPoints.count()).toBe(10);
  }, 60_000);

  it('keeps its session: messages published while the subscriber is away are stored when it is back', async () => {
    const { services } = await setUp();
    const sub = h!.running.pop()!;
    await sub.close();
    await publisher!.publishAsync('virtual/v1/V1RTUALV1N0000S09/event', fixture('virtual', 'virtual.event.manual-call.json'), { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await services.store.dataPoints.count()).toBe(0);
    h!.running.push(await subscribe(h!, broker!.url));
    await waitFor(async () => (await services.store.dataPoints.count()) === 1, 10_000, 'the manual call');
  });

  it('batches: publishes queued for it while it was away come in many at a time, many messages per job, each acknowledged once queued', async () => {
    const { services } = await setUp();
    const sub = h!.running.pop()!;
    await sub.close();
    const vins = Array.from({ length: 1000 }, (_, i) => `V1RTUALV1N${String(i).padStart(7, '0')}`);
    await Promise.all(vins.map((vin) => publisher!.publishAsync(`virtual/v1/${vin}/telemetry`, electricTelemetryOf(vin), { qos: 1 })));
    h!.running.push(await subscribe(h!, broker!.url));
    await waitFor(async () => (await services.store.dataPoints.count()) === 30 * vins.length, 60_000, 'every message stored');
    // One message per job would be 1000 jobs; Receive Maximum lets a batch fill (200 by default).
    const jobs = await harmonizeJobCount(services);
    expect(jobs).toBeLessThanOrEqual(vins.length / 20);
    // Everything was acknowledged: a new session of the same id gets nothing again.
    await h!.running.pop()!.close();
    const again = await startExternalSubscriber(h!.services, broker!.url);
    h!.running.push(again);
    await waitFor(() => again.client.connected, 5_000, 'reconnected');
    await new Promise((r) => setTimeout(r, 500));
    expect(await harmonizeJobCount(services)).toBe(jobs);
  }, 90_000);

  it('in a share group, a stopping member leaves while another stays, and the last one keeps its session', async () => {
    broker = await startMosquitto();
    h = await startHarness({ broker: false, env: { MQTT_URL: broker.url, MQTT_SHARE_GROUP: 'ingest' } });
    const { services } = h;
    const a = await subscribe(h, broker.url, 'member-a');
    const b = await subscribe(h, broker.url, 'member-b');
    publisher = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    const publish = (from: number, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => `V1RTUALV1N${String(from + i).padStart(7, '0')}`).map((vin) => publisher!.publishAsync(`virtual/v1/${vin}/telemetry`, electricTelemetryOf(vin), { qos: 1 })));
    await publish(0, 20);
    await waitFor(async () => (await services.store.dataPoints.count()) === 600, 20_000, 'the first 20 messages');
    await a.close();
    expect(h.logs.some((l) => l.includes('left the MQTT share group'))).toBe(true);
    // Left: its session is gone, so the whole stream goes to b.
    await publish(20, 20);
    await waitFor(async () => (await services.store.dataPoints.count()) === 1200, 20_000, 'the next 20, all through member-b');
    // member-b is the last: it keeps its session, and the broker queues for it meanwhile.
    await b.close();
    expect(h.logs.filter((l) => l.includes('left the MQTT share group'))).toHaveLength(1);
    await publish(40, 10);
    await new Promise((r) => setTimeout(r, 300));
    expect(await services.store.dataPoints.count()).toBe(1200);
    h.running.push(await subscribe(h, broker.url, 'member-b'));
    await waitFor(async () => (await services.store.dataPoints.count()) === 1500, 20_000, 'the 10 queued for member-b');
  }, 60_000);

  /** GET /ready of an API over the harness's services: what an orchestrator (and scale-out's start order) reads. */
  async function readiness(harness: Harness) {
    const app = await buildApp(harness.services, routeContexts(harness.services));
    try {
      const res = await app.inject({ method: 'GET', url: '/ready' });
      return { status: res.statusCode, subscriber: (res.json() as { checks: Record<string, string> }).checks['mqtt-subscriber'] };
    } finally {
      await app.close();
    }
  }

  it('is ready only while connected: ready with the broker up, not ready (503) once the broker is gone', async () => {
    await setUp();
    expect(await readiness(h!)).toEqual({ status: 200, subscriber: 'ok' });
    publisher!.end(true);
    await broker!.stop();
    broker = undefined;
    await waitFor(async () => (await readiness(h!)).status === 503, 10_000, '/ready to answer 503 without the broker');
    expect(await readiness(h!)).toEqual({ status: 503, subscriber: 'unreachable' });
  });

  it('is not ready when the broker cannot be reached at start', async () => {
    h = await startHarness({ broker: false });
    const sub = await startExternalSubscriber(h.services, `mqtt://127.0.0.1:${await freePort()}`);
    h.running.push(sub);
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.client.connected).toBe(false);
    await expect(h.services.readiness.get('mqtt-subscriber')!()).rejects.toThrow(/not connected/);
    expect(await readiness(h)).toEqual({ status: 503, subscriber: 'unreachable' });
  });
});
