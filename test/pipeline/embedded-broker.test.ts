import { afterEach, describe, expect, it } from 'vitest';
import { fixture, harmonizeJobCount, startHarness, waitFor, type Harness } from './harness.ts';

const VIN = 'V1RTUALV1N0000001';

describe('embedded broker → queue → worker → store', () => {
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
  });

  it('stores a QoS 1 telemetry message as catalog-valid data points with provenance', async () => {
    h = await startHarness();
    const { store, catalog, adapters, clock } = h.services;
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, fixture('virtual', 'virtual.telemetry.combustion.json'), { qos: 1 });
    await waitFor(async () => (await store.dataPoints.count()) === 23, 10_000, '23 stored points');

    const items = catalog.list().map((e) => e.technicalName);
    const latest = await store.dataPoints.latest([VIN], items);
    expect(latest).toHaveLength(23);
    const version = adapters.get('virtual')!.mappings.get('telemetry')!.version;
    for (const p of latest) {
      expect(catalog.validate(p.item, p.payload)).toEqual({ valid: true });
      expect(p).toMatchObject({ manufacturer: 'virtual', mappingVersion: version, receivedAt: clock.now().toISOString() });
    }
    expect(latest.find((p) => p.item === 'mileage')?.payload).toEqual({ value: 12345.6, unit: 'km', timestamp: '2026-11-25T02:30:00.000Z' });
    // Provenance is also on the history.
    const history = await store.dataPoints.history({ vin: VIN, item: 'fuellevel', limit: 10 });
    expect(history.items[0]).toMatchObject({ manufacturer: 'virtual', mappingVersion: version });
  });

  it('stores a re-sent publish once', async () => {
    h = await startHarness();
    const client = await h.connect();
    const body = fixture('virtual', 'virtual.event.crash.json');
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', body, { qos: 1 });
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', body, { qos: 1 });
    await waitFor(async () => (await h.services.store.dataPoints.count()) >= 10);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.services.store.dataPoints.count()).toBe(10);
  });

  it('keys duplicates on the payload, never on ids: two samples with the same messageId are both stored (F3)', async () => {
    h = await startHarness();
    const client = await h.connect();
    const sample = JSON.parse(fixture('virtual', 'virtual.telemetry.combustion.json')) as { sampledAt: string };
    for (const sampledAt of [sample.sampledAt, '2026-11-25T02:31:00.000Z']) {
      await client.publishAsync(`virtual/v1/${VIN}/telemetry`, JSON.stringify({ ...sample, sampledAt, messageId: 'same-id' }), { qos: 1 });
    }
    await waitFor(async () => (await h.services.store.dataPoints.count()) === 46, 10_000, 'two samples stored');
  });

  it('refuses a wrong password and an unknown user', async () => {
    h = await startHarness();
    await expect(h.connect('virtual', { password: 'wrong' })).rejects.toThrow(/Bad username or password|Not authorized/i);
    await expect(h.connect('virtual', { username: 'borealis' })).rejects.toThrow(/Bad username or password|Not authorized/i);
  });

  it('keeps a manufacturer to its own topics: another namespace or $SYS disconnects and queues nothing', async () => {
    h = await startHarness({ worker: false });
    for (const topic of ['borealis/v1/BRLAU1EV0N1000001/telemetry', '$SYS/broker/x', `virtual/v2/${VIN}/telemetry`, `virtual/v1/${VIN}/secret`]) {
      const client = await h.connect();
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.publish(topic, '{}', { qos: 1 });
      await closed;
    }
    expect(await harmonizeJobCount(h.services)).toBe(0);
    // The same client on its own topic is queued: the check above could have seen a job.
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, '{}', { qos: 1 });
    await waitFor(async () => (await harmonizeJobCount(h.services)) === 1);
  });

  it('refuses subscribing', async () => {
    h = await startHarness({ worker: false });
    const client = await h.connect();
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.subscribe('virtual/#', { qos: 1 });
    await closed;
  });

  it('drops a client sending an oversized payload or a 200-level topic, while another keeps publishing', async () => {
    h = await startHarness({ env: { MQTT_MAX_PAYLOAD_BYTES: '1024' } });
    const good = await h.connect();
    for (const [topic, payload] of [
      [`virtual/v1/${VIN}/telemetry`, 'x'.repeat(2048)],
      [Array.from({ length: 200 }, () => 'a').join('/'), '{}'],
    ] as const) {
      const bad = await h.connect();
      const closed = new Promise<void>((resolve) => bad.once('close', () => resolve()));
      bad.publish(topic, payload, { qos: 1 });
      await closed;
    }
    const small = JSON.stringify({
      vin: VIN,
      sampledAt: '2026-11-25T02:30:00.000Z',
      signals: { motion: { speedKmh: 1, headingDeg: 2 }, position: { lat: 1, lon: 2 }, odometerKm: 1, engine: { running: true } },
    });
    expect(small.length).toBeLessThan(1024);
    await good.publishAsync(`virtual/v1/${VIN}/telemetry`, small, { qos: 1 });
    await waitFor(async () => (await h.services.store.dataPoints.count()) === 5);
  });
});
