import type { FastifyInstance } from 'fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAdapterRegistry } from '../../src/adapters/registry.ts';
import { buildApp } from '../../src/app.ts';
import type { QuarantinedMessage } from '../../src/store/contract.ts';
import { copyProject, fixture, startHarness, waitFor, type Harness } from './harness.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';
import type { ReloadableRegistry } from '../../src/adapters/reloadable.ts';

const VIN = 'V1RTUALV1N0000001';
const AUTH = { authorization: 'Bearer test-admin-token' };

describe('quarantine: bad messages are kept with a reason and can be reprocessed', () => {
  let h: Harness | undefined;
  let app: FastifyInstance | undefined;
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(async () => {
    await app?.close();
    await h?.stop();
    project?.cleanup();
    h = app = project = undefined;
  });

  async function setUp() {
    project = copyProject();
    h = await startHarness({ paths: project.paths });
    app = await buildApp(h.services, routeContexts(h.services));
    await app.ready();
    return { h, app, project };
  }

  async function listQuarantine(query = ''): Promise<QuarantinedMessage[]> {
    const res = await app!.inject({ method: 'GET', url: `/admin/v1/quarantine${query}`, headers: AUTH });
    expect(res.statusCode).toBe(200);
    return (res.json() as { items: QuarantinedMessage[] }).items;
  }

  it('quarantines malformed JSON, garbage bytes, unmappable and schema-invalid messages one by one, storing the good ones of the same batch', async () => {
    const { h } = await setUp();
    const client = await h.connect();
    const topic = `virtual/v1/${VIN}/telemetry`;
    const good = fixture('virtual', 'virtual.telemetry.combustion.json');
    const overfull = JSON.stringify({ ...JSON.parse(good), signals: { ...JSON.parse(good).signals, fuel: { levelPct: 120 } } });
    await Promise.all([
      client.publishAsync(topic, `{"vin":"${VIN}", "sampledAt": `, { qos: 1 }),
      client.publishAsync(topic, Buffer.from([0xff, 0xfe, 0x00, 0x81]), { qos: 1 }),
      client.publishAsync(`virtual/v1/${VIN}/event`, JSON.stringify({ vin: VIN, occurredAt: '2026-11-25T10:00:00Z', event: { type: 'ALIEN' } }), { qos: 1 }),
      client.publishAsync(topic, overfull, { qos: 1 }),
      client.publishAsync(topic, good, { qos: 1 }),
    ]);
    await waitFor(async () => (await h.services.store.quarantine.count()) === 4, 10_000, '4 quarantined');
    await waitFor(async () => (await h.services.store.dataPoints.count()) === 23, 10_000, 'the good message stored');

    const all = await listQuarantine('?manufacturer=virtual');
    expect(all.map((e) => e.code).sort()).toEqual(['DECODE_FAILED', 'DECODE_FAILED', 'MAPPING_FAILED', 'SCHEMA_VIOLATION']);
    const version = h.services.adapters.get('virtual')!.mappings.get('telemetry')!.version;
    for (const e of all) {
      expect(e).toMatchObject({ manufacturer: 'virtual', failures: 1, receivedAt: h.services.clock.now().toISOString() });
      expect(e.reason.length).toBeGreaterThan(5);
    }
    const json = all.find((e) => e.code === 'DECODE_FAILED' && e.rawEncoding === 'utf8')!;
    expect(json).toMatchObject({ vin: VIN, topic, messageType: 'telemetry', mappingVersion: version, raw: `{"vin":"${VIN}", "sampledAt": ` });
    const bytes = all.find((e) => e.rawEncoding === 'base64')!;
    expect(Buffer.from(bytes.raw, 'base64')).toEqual(Buffer.from([0xff, 0xfe, 0x00, 0x81]));
    expect(all.find((e) => e.code === 'MAPPING_FAILED')!.reason).toContain('unknown event type: ALIEN');
    expect(all.find((e) => e.code === 'SCHEMA_VIOLATION')).toMatchObject({ vin: VIN, reason: expect.stringContaining('fuellevel: /value must be <= 100') });
    expect((await listQuarantine('?code=SCHEMA_VIOLATION')).length).toBe(1);
    expect((await listQuarantine('?manufacturer=borealis')).length).toBe(0);
    expect((await listQuarantine('?limit=2')).length).toBe(2);
    // Nothing personal in the logs: the VIN appears only pseudonymised.
    expect(h.logs.join('')).not.toContain(VIN);
  });

  it('reprocesses after a mapping fix: the messages are stored with the new mapping version and leave quarantine', async () => {
    const { h, app, project } = await setUp();
    const file = join(project.paths.mappings, 'virtual', 'telemetry.jsonata');
    const original = readFileSync(file, 'utf8');
    // A data engineer's mistake: a unit the catalog does not know.
    const typo = original.replace('"mileage": { "value": $floor($s.odometerKm), "unit": "km"', '"mileage": { "value": $floor($s.odometerKm), "unit": "kms"');
    expect(typo).not.toBe(original);
    writeFileSync(file, typo);
    const broken = await loadAdapterRegistry(project.paths.adapters, new Set(h.services.catalog.list().map((e) => e.technicalName)), { mappingsDir: project.paths.mappings });
    // Served as a mapping reload serves it: every part's context reads the same registry.
    (h.services.adapters as ReloadableRegistry).replace(broken);

    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/telemetry`, fixture('virtual', 'virtual.telemetry.combustion.json'), { qos: 1 });
    await client.publishAsync(`virtual/v1/V1RTUALV1N0000002/telemetry`, fixture('virtual', 'virtual.telemetry.diesel.json'), { qos: 1 });
    await waitFor(async () => (await h.services.store.quarantine.count()) === 2, 10_000, '2 quarantined');
    expect(await h.services.store.dataPoints.count()).toBe(0);
    const [first] = await listQuarantine('?code=SCHEMA_VIOLATION');
    expect(first?.reason).toContain('mileage: /unit must be equal to one of the allowed values');

    // Reprocessing before the fix fails again: the entry stays, with its failure count raised.
    h.services.clock.now = () => new Date('2026-01-01T00:05:00.000Z');
    let res = await app.inject({ method: 'POST', url: '/admin/v1/quarantine/reprocess', headers: AUTH, payload: { ids: [first!.id] } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ queued: 1 });
    await waitFor(async () => (await h.services.store.quarantine.get([first!.id]))[0]?.failures === 2, 10_000, 'second failure');

    // The fix is deployed (the mapping compiled again), then everything of the filter reprocessed.
    writeFileSync(file, original);
    (h.services.adapters as ReloadableRegistry).replace(await loadAdapterRegistry(project.paths.adapters, new Set(h.services.catalog.list().map((e) => e.technicalName)), { mappingsDir: project.paths.mappings }));
    res = await app.inject({ method: 'POST', url: '/admin/v1/quarantine/reprocess', headers: AUTH, payload: { filter: { manufacturer: 'virtual', code: 'SCHEMA_VIOLATION' } } });
    expect(res.json()).toEqual({ queued: 2 });
    await waitFor(async () => (await h.services.store.quarantine.count()) === 0, 10_000, 'quarantine empty');
    expect(await h.services.store.dataPoints.count()).toBe(23 + 22);
    const [mileage] = await h.services.store.dataPoints.latest([VIN], ['mileage']);
    expect(mileage).toMatchObject({ payload: { unit: 'km' }, mappingVersion: h.services.adapters.get('virtual')!.mappings.get('telemetry')!.version });
    expect(mileage?.mappingVersion).not.toBe(broken.get('virtual')!.mappings.get('telemetry')!.version);
    // The provenance is visible through the admin history endpoint too.
    const history = await app.inject({ method: 'GET', url: `/admin/v1/data-points/${VIN}/mileage/history`, headers: AUTH });
    expect(history.json().items[0]).toMatchObject({ manufacturer: 'virtual', mappingVersion: mileage!.mappingVersion, receivedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('rejects a reprocess request naming neither or both of ids and filter', async () => {
    const { app } = await setUp();
    for (const payload of [{}, { ids: ['a'], filter: {} }]) {
      const res = await app.inject({ method: 'POST', url: '/admin/v1/quarantine/reprocess', headers: AUTH, payload });
      expect(res.statusCode).toBe(400);
    }
    expect((await app.inject({ method: 'GET', url: '/admin/v1/quarantine?cursor=bogus', headers: AUTH })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/admin/v1/quarantine' })).statusCode).toBe(401);
  });

  it('stops a looping or endlessly recursing mapping, quarantines its message and goes on', async () => {
    project = copyProject();
    const file = join(project.paths.mappings, 'virtual', 'event.jsonata');
    // Tail recursion runs as a loop (JSONata optimises it): only the time limit stops it.
    // A crash event loops, any other event recurses without end (the depth limit).
    writeFileSync(
      file,
      `(
        $loop := function($n) { $loop($n + 1) };
        $deep := function($n) { 1 + $deep($n + 1) };
        event.type = "CRASH" ? $loop(0) : event.type = "TELESERVICE_CALL" ? { "vin": vin, "items": { "automaticteleservicecall": { "receivedAt": $receivedAt } } } : $deep(0)
      )`,
    );
    h = await startHarness({ paths: project.paths, env: { MAPPING_TIMEOUT_MS: '300' } });
    const client = await h.connect();
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', fixture('virtual', 'virtual.event.crash.json'), { qos: 1 });
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S09/event', fixture('virtual', 'virtual.event.manual-call.json'), { qos: 1 });
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S10/event', fixture('virtual', 'virtual.event.teleservice.json'), { qos: 1 });
    await waitFor(async () => (await h!.services.store.quarantine.count()) === 2, 10_000, '2 quarantined');
    await waitFor(async () => (await h!.services.store.dataPoints.count()) === 1, 10_000, 'the teleservice call stored');
    const entries = (await h.services.store.quarantine.list({}, 10)).items;
    expect(entries.map((e) => [e.vin, e.code]).sort()).toEqual([
      ['V1RTUALV1N0000S08', 'MAPPING_LIMIT'],
      ['V1RTUALV1N0000S09', 'MAPPING_LIMIT'],
    ]);
    expect(entries.find((e) => e.vin === 'V1RTUALV1N0000S08')?.reason).toMatch(/D1012/);
    expect(entries.find((e) => e.vin === 'V1RTUALV1N0000S09')?.reason).toMatch(/D1011/);
  });

  it('survives garbage bytes on the MQTT port: the broker drops that connection and keeps serving', async () => {
    h = await startHarness();
    const port = Number(new URL(h.brokerUrl!).port);
    for (const garbage of [Buffer.from('GET / HTTP/1.1\r\n\r\n'), Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x7f]), Buffer.alloc(4096, 0xaa)]) {
      await new Promise<void>((resolve) => {
        const s = connect(port, '127.0.0.1', () => s.write(garbage));
        s.on('error', () => resolve());
        s.on('close', () => resolve());
        setTimeout(() => (s.destroy(), resolve()), 2000);
      });
    }
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${VIN}/event`, fixture('virtual', 'virtual.event.manual-call.json').replaceAll('V1RTUALV1N0000S09', VIN), { qos: 1 });
    await waitFor(async () => (await h!.services.store.dataPoints.count()) === 1, 10_000, 'a point after the garbage');
  });
});
