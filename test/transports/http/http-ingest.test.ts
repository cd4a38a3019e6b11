import fc from 'fast-check';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../../src/transports/http/signature.ts';
import { adapterSecret } from '../../../src/adapters/secrets.ts';
import { startHarmonizeWorker } from '../../../src/pipeline/worker.ts';
import { freePort } from '../../helpers/free-port.ts';
import type { Running } from '../../../src/running.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { fixture, harmonizeJobCount, harmonizeJobCounts, waitFor } from '../../pipeline/harness.ts';
import { pipelineContext } from '../../../src/main/contexts.ts';

const URL = '/ingest/v1/borealis';

function batch(...records: string[]): string {
  return JSON.stringify({ batchId: 'b-1', records: records.map((r) => JSON.parse(r) as unknown) });
}

function signed(t: TestApp, body: string | Buffer, at = t.services.clock.now()) {
  const secret = adapterSecret(t.services.config, t.services.adapters.get('borealis')!);
  return { 'content-type': 'application/json', 'x-borealis-signature': signBody(secret, Math.floor(at.getTime() / 1000), body) };
}

describe('HTTP ingest (borealis)', () => {
  let t: TestApp;
  let worker: Running | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await t?.cleanup();
  });

  it('accepts a signed batch with 202 and stores every record as catalog-valid points with provenance', async () => {
    t = await createTestApp();
    worker = startHarmonizeWorker(pipelineContext(t.services));
    const body = batch(
      fixture('borealis', 'borealis.vehicle-status.json'),
      fixture('borealis', 'borealis.incident.collision.json'),
      fixture('borealis', 'borealis.incident.sos.json'),
    );
    const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 3 });

    const { store, catalog, adapters } = t.services;
    await waitFor(async () => (await store.dataPoints.count()) === 24, 10_000, '24 points');
    const vin = 'BRLAU1EV0N1000001';
    const latest = await store.dataPoints.latest([vin], ['mileage', 'coolanttemperature', 'vehiclespeed']);
    const version = adapters.get('borealis')!.mappings.get('vehicle-status')!.version;
    expect(latest.map((p) => [p.item, p.payload.value, p.payload.unit]).sort()).toEqual([
      ['coolanttemperature', 91, 'C'],
      ['mileage', 12412, 'km'],
      ['vehiclespeed', 49.9, 'km/h'],
    ].sort());
    for (const p of latest) {
      expect(catalog.validate(p.item, p.payload)).toEqual({ valid: true });
      expect(p).toMatchObject({ manufacturer: 'borealis', mappingVersion: version, receivedAt: t.services.clock.now().toISOString() });
    }
    const sos = await store.dataPoints.latest(['BRLAU1EV0N1000003'], ['accidentcallmanual']);
    expect(sos[0]?.payload).toEqual({ receivedAt: t.services.clock.now().toISOString(), timestamp: '2026-11-25T10:10:00.000Z' });
  });

  it('answers 401 and queues nothing for a bad, missing, malformed or stale signature', async () => {
    t = await createTestApp();
    const body = batch(fixture('borealis', 'borealis.incident.sos.json'));
    const good = signed(t, body);
    const cases: Record<string, string>[] = [
      { ...good, 'x-borealis-signature': good['x-borealis-signature'].slice(0, -1) + (good['x-borealis-signature'].endsWith('0') ? '1' : '0') },
      { 'content-type': 'application/json' },
      { ...good, 'x-borealis-signature': 'sha256=abc' },
      signed(t, body, new Date(t.services.clock.now().getTime() - 301_000)),
      signed(t, `${body} `),
    ];
    for (const headers of cases) {
      const res = await t.app.inject({ method: 'POST', url: URL, headers, payload: body });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ reasonCode: 'CAR.401', url: URL, method: 'POST' });
    }
    expect(await harmonizeJobCount(t.services)).toBe(0);
    // The same body correctly signed is queued: the count above could have seen it.
    expect((await t.app.inject({ method: 'POST', url: URL, headers: good, payload: body })).statusCode).toBe(202);
    expect(await harmonizeJobCount(t.services)).toBe(1);
  });

  it('answers 413 for a body over the limit, 415 for another content type, 404 for a non-HTTP or unknown manufacturer, 400 for a bad envelope', async () => {
    t = await createTestApp({ env: { BODY_LIMIT_BYTES: '2048' } });
    const big = JSON.stringify({ records: [{ recordType: 'incident', pad: 'x'.repeat(4000) }] });
    expect((await t.app.inject({ method: 'POST', url: URL, headers: signed(t, big), payload: big })).statusCode).toBe(413);
    const text = 'records';
    expect((await t.app.inject({ method: 'POST', url: URL, headers: { ...signed(t, text), 'content-type': 'text/plain' }, payload: text })).statusCode).toBe(415);
    for (const url of ['/ingest/v1/virtual', '/ingest/v1/nobody']) {
      expect((await t.app.inject({ method: 'POST', url, headers: signed(t, '{}'), payload: '{}' })).statusCode).toBe(404);
    }
    for (const body of ['{"records": []}', '{"records": [{"noType": 1}]}', '[1,2]', '{not json']) {
      const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
      expect(res.statusCode).toBe(400);
    }
    expect(await harmonizeJobCount(t.services)).toBe(0);
  });

  it('answers 413 naming the cap for more records than INGEST_MAX_RECORDS (default 1000) in one request, and queues nothing', async () => {
    t = await createTestApp();
    expect(t.services.config.INGEST_MAX_RECORDS).toBe(1000);
    const records = (n: number) => JSON.stringify({ batchId: 'b-big', records: Array.from({ length: n }, () => ({ recordType: 'incident' })) });
    const flood = records(20_000);
    const refused = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, flood), payload: flood });
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toEqual({
      reasonCode: 'CAR.413',
      reasonText: 'Payload too large, 20000 records in one request; at most 1000 are accepted per request, send the rest in further requests.',
      url: URL,
      method: 'POST',
    });
    const justOver = records(1001);
    expect((await t.app.inject({ method: 'POST', url: URL, headers: signed(t, justOver), payload: justOver })).statusCode).toBe(413);
    expect(await harmonizeJobCount(t.services)).toBe(0);
    const atCap = records(1000);
    const accepted = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, atCap), payload: atCap });
    expect({ status: accepted.statusCode, body: accepted.json() }).toEqual({ status: 202, body: { accepted: 1000 } });
  });

  it('takes its record cap from INGEST_MAX_RECORDS', async () => {
    t = await createTestApp({ env: { INGEST_MAX_RECORDS: '2' } });
    const body = batch(fixture('borealis', 'borealis.incident.sos.json'), fixture('borealis', 'borealis.incident.collision.json'), fixture('borealis', 'borealis.vehicle-status.json'));
    const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
    expect({ status: res.statusCode, text: res.json().reasonText }).toEqual({ status: 413, text: expect.stringContaining('3 records in one request; at most 2') });
    expect(await harmonizeJobCount(t.services)).toBe(0);
  });

  it('answers 400, not 500, for a signed record nested thousands of levels deep, and queues nothing', async () => {
    t = await createTestApp();
    const deep = `{"records": [{"recordType": "incident", "x": ${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`;
    const refused = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, deep), payload: deep });
    expect({ status: refused.statusCode, text: refused.json().reasonText }).toEqual({ status: 400, text: expect.stringMatching(/records\[0\] is nested too deeply/) });
    expect(await harmonizeJobCount(t.services)).toBe(0);
  });

  it('answers 503 with Retry-After at once when the queue is down (Redis refuses the connection)', async () => {
    const port = await freePort();
    t = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    const body = batch(fixture('borealis', 'borealis.incident.sos.json'));
    const started = Date.now();
    const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
    // At once: not after the 5 s a slow (not refusing) Redis is given for its first connection.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(res.statusCode).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // And it stays quick once the producer has given up connecting at first.
    const again = Date.now();
    expect((await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body })).statusCode).toBe(503);
    expect(Date.now() - again).toBeLessThan(1000);
  });

  it('answers 503 within a few seconds when Redis accepts connections but stops answering (hung, not down)', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    try {
      await waitFor(async () => {
        try {
          const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
          probe.on('error', () => {});
          await probe.connect();
          await probe.quit();
          return true;
        } catch {
          return false;
        }
      }, 5000, 'the test redis-server');
      t = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
      const body = batch(fixture('borealis', 'borealis.incident.sos.json'));
      expect((await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body })).statusCode).toBe(202);
      redis.kill('SIGSTOP');
      const started = Date.now();
      const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
      expect({ status: res.statusCode, fast: Date.now() - started < 5000 }).toEqual({ status: 503, fast: true });
    } finally {
      // Redis answers again before the app closes its connections, then goes.
      redis.kill('SIGCONT');
      await t?.cleanup();
      t = undefined as unknown as TestApp;
      redis.kill('SIGKILL');
    }
  });

  it('never answers 5xx to signed arbitrary bodies (fuzz)', async () => {
    t = await createTestApp();
    worker = startHarmonizeWorker(pipelineContext(t.services));
    const bodies = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.array(fc.jsonValue(), { maxLength: 5 }).map((records) => JSON.stringify({ records })),
      fc.array(fc.record({ recordType: fc.constantFrom('incident', 'vehicle-status', 'other'), incident: fc.jsonValue() }), { minLength: 1, maxLength: 3 }).map((records) => JSON.stringify({ records })),
      fc.string(),
      fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const res = await t.app.inject({ method: 'POST', url: URL, headers: signed(t, body), payload: body });
        expect([202, 400]).toContain(res.statusCode);
      }),
      { numRuns: 150 },
    );
    // The accepted ones went through the worker without failing a job: bad records are quarantined.
    const counts = await waitFor(async () => {
      const c = await harmonizeJobCounts(t.services);
      return c.waiting === 0 && c.active === 0 && c.delayed === 0 ? c : undefined;
    });
    expect(counts.failed).toBe(0);
    expect(counts.completed).toBeGreaterThan(0);
    expect(await t.services.store.quarantine.count()).toBeGreaterThan(0);
  });
});
