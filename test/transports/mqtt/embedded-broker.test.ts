import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, harmonizeJobCount, startHarness, waitFor, type Harness } from '../../pipeline/harness.ts';

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
    expect(latest.find((p) => p.item === 'mileage')?.payload).toEqual({ value: 12345, unit: 'km', timestamp: '2026-11-25T02:30:00.000Z' });
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

  it('keys duplicates on the payload, never on ids: two samples with the same messageId are both stored', async () => {
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

  it('keeps a manufacturer to its own topics: another namespace is acknowledged and dropped, $SYS disconnects; nothing is queued', async () => {
    h = await startHarness({ worker: false });
    const sys = await h.connect();
    const closed = new Promise<void>((resolve) => sys.once('close', () => resolve()));
    sys.publish('$SYS/broker/x', '{}', { qos: 1 });
    await closed;
    // Refused for good, so acknowledged (MQTT-3.3.5-2 allows it) and dropped: a client that
    // were disconnected instead would re-send it first on every reconnect, and nothing after it
    // would ever get through.
    const client = await h.connect();
    for (const topic of ['borealis/v1/BRLAU1EV0N1000001/telemetry', `virtual/v2/${VIN}/telemetry`, `virtual/v1/${VIN}/secret`]) {
      await client.publishAsync(topic, '{}', { qos: 1 });
    }
    expect(client.connected).toBe(true);
    expect(await harmonizeJobCount(h.services)).toBe(0);
    // The same client on its own topic is queued: the check above could have seen a job.
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

  it("acknowledges and drops an oversized payload, and the same client's next messages are stored; a 200-level topic drops the client", async () => {
    h = await startHarness({ env: { MQTT_MAX_PAYLOAD_BYTES: '1024' } });
    const client = await h.connect();
    // Far over the limit (and over the limit plus any topic and header room) but a publish.
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, 'x'.repeat(200 * 1024), { qos: 1 });
    const bad = await h.connect();
    const closed = new Promise<void>((resolve) => bad.once('close', () => resolve()));
    bad.publish(Array.from({ length: 200 }, () => 'a').join('/'), '{}', { qos: 1 });
    await closed;
    const small = (speedKmh: number) => JSON.stringify({
      vin: VIN,
      sampledAt: `2026-11-25T02:3${speedKmh}:00.000Z`,
      signals: { motion: { speedKmh, headingDeg: 2 }, position: { lat: 1, lon: 2 }, odometerKm: 1, engine: { running: true } },
    });
    expect(small(1).length).toBeLessThan(1024);
    for (const speed of [1, 2, 3]) await client.publishAsync(`virtual/v1/${VIN}/telemetry`, small(speed), { qos: 1 });
    await waitFor(async () => (await h.services.store.dataPoints.count()) === 15, 10_000, 'the three later messages stored');
    expect(h.logs.some((l) => l.includes('an MQTT message over MQTT_MAX_PAYLOAD_BYTES acknowledged and dropped'))).toBe(true);
  });

  it('closes a connection whose packet announces more than the limit at its first bytes, before buffering it (a 120 MB CONNECT)', async () => {
    h = await startHarness({ worker: false });
    const { port } = new URL(h.brokerUrl!);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    // CONNECT (type 1), remaining length 120 MiB as an MQTT variable-length integer, then a first 64 KB of it.
    const length = 120 * 1024 * 1024;
    const varint: number[] = [];
    for (let x = length; x > 0; x = Math.floor(x / 128)) varint.push((x % 128) | (x >= 128 ? 0x80 : 0));
    const sent = Date.now();
    socket.write(Buffer.concat([Buffer.from([0x10, ...varint]), Buffer.alloc(64 * 1024)]));
    await closed;
    expect(Date.now() - sent).toBeLessThan(2000);
    expect(h.logs.some((l) => l.includes('packet over the size limit'))).toBe(true);
    // Others are still served.
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, '{}', { qos: 1 });
  });
});
