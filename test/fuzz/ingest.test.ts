import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { quarantineIdOf, rawMessage, type RawMessage } from '../../src/domain/raw-message.ts';
import { startHarmonizeWorker } from '../../src/pipeline/worker.ts';
import type { Running } from '../../src/running.ts';
import type { Services } from '../../src/services.ts';
import { borealisBatch, borealisRecord } from '../gdpr/seed.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { fixture, harmonizeJobCounts, startHarness, waitFor, type Harness } from '../pipeline/harness.ts';
import { ERROR_BODY } from './requests.ts';
import { pipelineContext } from '../../src/main/contexts.ts';

const RUNS = Math.max(10, Math.round(Number(process.env.FUZZ_RUNS ?? 50) / 2));

/** Waits until the pipeline has taken every batch and none failed (a bad message never fails its batch). */
async function drained(services: Services) {
  await waitFor(async () => {
    const c = await harmonizeJobCounts(services);
    return c.waiting === 0 && c.active === 0 && c.delayed === 0 && c.prioritized === 0;
  }, 20_000, 'the harmonize queue to drain');
  expect((await harmonizeJobCounts(services)).failed).toBe(0);
}

/** Every message's quarantine entry exists (ids are content hashes, so duplicates are one entry). */
async function allQuarantined(services: Services, messages: RawMessage[]) {
  const ids = [...new Set(messages.map(quarantineIdOf))];
  await waitFor(async () => (await services.store.quarantine.get(ids)).length === ids.length, 20_000, `${ids.length} quarantine entries`);
}

/**
 * Every input validated, never a 5xx for bad input, fuzzed for the ingest paths: random bytes over MQTT (logged in as the virtual
 * manufacturer) and over HTTP (signed and unsigned) never crash the broker, the route or the
 * worker; what is accepted and cannot be harmonized ends in quarantine, what is refused gets a
 * 4xx in the contract's body; and a valid message sent afterwards is still stored.
 */
describe('the ingest paths survive random bytes', () => {
  let h: Harness | undefined;
  let t: TestApp | undefined;
  let worker: Running | undefined;
  afterEach(async () => {
    await h?.stop();
    await worker?.close();
    await t?.cleanup();
    h = t = worker = undefined;
  });

  it('MQTT: random payloads are acknowledged and quarantined, the broker and worker keep going', async () => {
    h = await startHarness();
    const client = await h.connect('virtual');
    const sent: RawMessage[] = [];
    const payload = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
      fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
      fc.string({ unit: 'binary', maxLength: 300 }).map((s) => Buffer.from(s, 'utf8')),
    );
    const topic = fc.tuple(fc.stringMatching(/^[A-Z0-9]{1,20}$/), fc.constantFrom('telemetry', 'event'));

    await fc.assert(
      fc.asyncProperty(topic, payload, async ([vin, type], bytes) => {
        const name = `virtual/v1/${vin}/${type}`;
        // Resolves on PUBACK: the broker accepted (and durably queued) the message.
        await client.publishAsync(name, bytes, { qos: 1 });
        sent.push(rawMessage({ manufacturer: 'virtual', messageType: type, receivedAt: '', topic: name }, bytes));
      }),
      { numRuns: RUNS * 4 },
    );
    expect(client.connected).toBe(true);
    await drained(h.services);
    await allQuarantined(h.services, sent);
    expect(await h.services.store.dataPoints.count()).toBe(0);

    // Still working: a valid message is stored.
    await client.publishAsync('virtual/v1/V1RTUALV1N0000001/telemetry', fixture('virtual', 'virtual.telemetry.combustion.json'), { qos: 1 });
    await waitFor(async () => (await h!.services.store.dataPoints.count()) > 0, 10_000, 'the valid message');
  });

  it('MQTT: mutated valid messages are stored or quarantined, never fail a batch', async () => {
    h = await startHarness();
    const client = await h.connect('virtual');
    const base = JSON.parse(fixture('virtual', 'virtual.telemetry.combustion.json')) as Record<string, unknown>;
    const mutated = fc.tuple(fc.constantFrom(...Object.keys(base), 'signals', 'extra'), fc.jsonValue({ maxDepth: 3 })).map(([key, value]) => ({ ...base, [key]: value }));
    await fc.assert(
      fc.asyncProperty(mutated, async (message) => {
        await client.publishAsync('virtual/v1/V1RTUALV1N0000001/telemetry', JSON.stringify(message), { qos: 1 });
      }),
      { numRuns: RUNS * 2 },
    );
    await drained(h.services);
    expect((await h.services.store.quarantine.count()) + (await h.services.store.dataPoints.count())).toBeGreaterThan(0);
  });

  it('HTTP: random bodies, signed or not, get 202 or a 4xx in the error contract; accepted garbage is quarantined', async () => {
    t = await createTestApp({ env: { PIPELINE_BATCH_MAX_WAIT_MS: '5' } });
    worker = startHarmonizeWorker(pipelineContext(t.services));
    const { services } = t;
    const accepted: RawMessage[] = [];
    const record = fc.record({
      recordType: fc.constantFrom('vehicle-status', 'incident', 'unknown-type'),
      vehicle: fc.oneof(fc.record({ vinNumber: fc.constantFrom('BRLAU1EV0N1000009', 'nope') }), fc.jsonValue({ maxDepth: 2 })),
      readings: fc.jsonValue({ maxDepth: 2 }),
      incident: fc.jsonValue({ maxDepth: 2 }),
    });
    const records = fc.array(fc.oneof({ weight: 6, arbitrary: record }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }), { minLength: 1, maxLength: 5 });
    const body = fc.oneof(
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 1024 }).map((b) => Buffer.from(b)) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? '')) },
      { weight: 3, arbitrary: records.map((r) => Buffer.from(JSON.stringify({ batchId: 'fuzz', records: r }))) },
    );
    const signed = fc.constantFrom('signed', 'signed', 'unsigned', 'bad-signature');
    const type = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream');
    const secret = adapterSecret(services.config, services.adapters.get('borealis')!);

    await fc.assert(
      fc.asyncProperty(body, signed, type, async (bytes, how, contentType) => {
        const now = Math.floor(services.clock.now().getTime() / 1000);
        // A valid signature of these bytes, or one of other bytes.
        const signature = signBody(secret, now, how === 'signed' ? bytes : Buffer.concat([bytes, Buffer.from(' ')]));
        const sent = { 'content-type': contentType, ...(how === 'unsigned' ? {} : { 'x-borealis-signature': signature }) };
        const res = await t!.app.inject({ method: 'POST', url: '/ingest/v1/borealis', headers: sent, payload: bytes });
        const label = `${how} ${contentType} ${bytes.toString('latin1').slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect([202, 400, 401, 413, 415], label).toContain(res.statusCode);
        if (res.statusCode === 202) {
          expect(how, label).toBe('signed');
          const parsed = JSON.parse(bytes.toString('utf8')) as { records: Record<string, unknown>[] };
          for (const r of parsed.records) {
            accepted.push(rawMessage({ manufacturer: 'borealis', messageType: String(r.recordType), receivedAt: '' }, JSON.stringify(r)));
          }
          return;
        }
        expect(res.json(), label).toEqual(ERROR_BODY);
        expect(res.json().reasonCode, label).toBe(`CAR.${res.statusCode}`);
      }),
      { numRuns: RUNS * 4 },
    );
    expect(accepted.length).toBeGreaterThan(0);
    await drained(services);
    await allQuarantined(services, accepted);
    expect(await services.store.dataPoints.count()).toBe(0);

    // Still working: a valid signed batch is stored.
    expect((await t.app.inject(borealisBatch(services, [borealisRecord('vehicle-status', 'BRLAU1EV0N1000001')]))).statusCode).toBe(202);
    await waitFor(async () => (await services.store.dataPoints.count()) > 0, 10_000, 'the valid batch');
  });
});
