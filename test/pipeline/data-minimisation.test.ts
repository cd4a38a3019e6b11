import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suppliedItems } from '../../src/delivery/capabilities.ts';
import { analyse, toDataPoints } from '../../src/pipeline/harmonize.ts';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import { type PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import type { Services } from '../../src/services.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { deliveryBody, giveConsent, setVehicle } from '../delivery/fixtures.ts';
import { addConsumer } from '../helpers/app.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { startPushHarness, type PushHarness } from '../push/harness.ts';
import {
  inject, injectionsArb, keysDeep, namesReadBy, rawFixtures, schemaOf, toRawMessage, undeclaredKeys, vinFor, withVin, type RawFixture,
} from './data-minimisation-inject.ts';
import { waitFor } from './harness.ts';

/**
 * Data minimisation (GDPR Art. 5(1)(c)): a raw message carrying
 * fields beyond what the mappings take (personal data, a GPS trace, catalog-looking names)
 * stores and forwards nothing more than the same message without them, and a consumer receives,
 * by pull or by push, only the items of its subscription: `geolocation` only when it asked.
 * Real parts throughout: the worker's batch function (src/pipeline/process-batch.ts) on the real
 * mappings, catalog and SQLite store, the fan-out and push workers on the suite's Redis, the
 * HTTP app, and a local webhook receiver.
 */

const FIXTURES = rawFixtures();
const READ = { virtual: namesReadBy('virtual'), borealis: namesReadBy('borealis') };
const RECEIVED_AT = '2026-11-25T10:20:00.000Z';

/** The message without the extras, harmonized: what the store and consumers may see of it. */
async function cleanPoints(services: Services, f: RawFixture, vin: string): Promise<DataPoint[]> {
  const adapter = services.adapters.get(f.manufacturer)!;
  const msg = toRawMessage(f, withVin(f, vin), RECEIVED_AT);
  const analysis = await analyse(adapter, services.catalog, msg);
  expect(analysis.failure, `fixture ${f.name} harmonizes`).toBeUndefined();
  return toDataPoints(adapter, analysis, msg);
}

/** Every stored point of a VIN, across all catalog items (history, not only the latest). */
async function storedPoints(services: Services, vin: string): Promise<DataPoint[]> {
  const out: DataPoint[] = [];
  for (const { technicalName: item } of services.catalog.list()) {
    out.push(...(await services.store.dataPoints.history({ vin, item, limit: 1000 })).items);
  }
  return out;
}

const byKey = (a: DataPoint, b: DataPoint) => `${a.item}@${a.timestampMs}`.localeCompare(`${b.item}@${b.timestampMs}`);

/** Payloads whose keys the item's schema does not declare, as "item: /pointer". */
function undeclared(services: Services, payloads: { item: string; payload: unknown }[]): string[] {
  return payloads.flatMap((p) => undeclaredKeys(schemaOf(services.catalog.get(p.item)), p.payload).map((k) => `${p.item}: ${k}`));
}

/** The files of the store (SQLite database, WAL) that contain any of the markers. */
function markersOnDisk(dir: string, markers: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = readFileSync(join(entry.parentPath, entry.name));
    for (const m of markers) if (bytes.includes(m)) found.push(`${entry.name}: ${m}`);
  }
  return found;
}

describe('data minimisation: extra raw fields are not stored', () => {
  let t: TestServices;
  let fanout: PushFanoutEnqueuer;
  const allMarkers: string[] = [];

  beforeAll(async () => {
    t = await createTestServices();
    fanout = createPushFanoutEnqueuer(t.services);
  });
  afterAll(async () => {
    await fanout.close();
    await t.cleanup();
  });

  it('a message with random extra fields stores exactly what it stores without them', async () => {
    const { services } = t;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIXTURES), injectionsArb, async (f, injections) => {
        const vin = vinFor(f.manufacturer, ++n);
        const expected = await cleanPoints(services, f, vin);
        const dirty = inject(withVin(f, vin), injections, READ[f.manufacturer]);
        allMarkers.push(...dirty.markers);

        const outcome = await processBatch(services, fanout, [toRawMessage(f, dirty.body, RECEIVED_AT)]);
        expect(outcome.quarantined).toBe(0);
        const stored = await storedPoints(services, vin);

        // Every key of every stored payload is one its catalog schema declares.
        expect(undeclared(services, stored)).toEqual([]);
        // No injected name (unless the clean payloads have it anyway) and no injected value.
        const cleanKeys = keysDeep(expected.map((p) => p.payload));
        const storedKeys = keysDeep(stored.map((p) => p.payload));
        expect(dirty.names.filter((name) => !cleanKeys.has(name) && storedKeys.has(name))).toEqual([]);
        const text = JSON.stringify(stored);
        expect(dirty.markers.filter((m) => text.includes(m))).toEqual([]);
        // The extras change nothing: the same points, payloads and provenance.
        expect([...stored].sort(byKey)).toEqual([...expected].sort(byKey));
      }),
      { numRuns: 60 },
    );
    // Nor anywhere else in the store: no table (quarantine, audit, ...) kept the extras.
    expect(markersOnDisk(t.dataDir, allMarkers)).toEqual([]);
  }, 60_000);
});

interface SubscriptionPick {
  items: string[];
  /** Pull items the webhook asks updates for (a subset of `items`). */
  watched: string[];
}

describe('data minimisation: consumers get only their subscription items', () => {
  let h: PushHarness;
  let pushItems: Set<string>;
  let allItems: string[];
  /** subscriptionId → how many webhooks it must receive in all. */
  const expectedPushes = new Map<string, number>();

  beforeAll(async () => {
    h = await startPushHarness({ seed: false, env: { RATE_LIMIT_SUBSCRIPTION_MAX: '100000', RATE_LIMIT_VEHICLE_MAX: '100000' } });
    allItems = h.t.services.catalog.list().map((e) => e.technicalName);
    pushItems = new Set(h.t.services.catalog.list({ deliveryMethod: 'push' }).map((e) => e.technicalName));
  });
  afterAll(() => h.stop());

  const received = (subscriptionId: string) =>
    h.receiver.requests.map((r) => ({ text: r.body, json: JSON.parse(r.body) })).filter((r) => r.json.subscriptionId === subscriptionId);

  it('pull answers and webhooks carry only subscribed items, and no extra raw field', async () => {
    const { services, app } = h.t;
    const { catalog, store } = services;
    const pickArb: fc.Arbitrary<SubscriptionPick> = fc
      .subarray(allItems, { minLength: 1 })
      .chain((items) => fc.record({ items: fc.constant(items), watched: fc.subarray(items.filter((i) => !pushItems.has(i))) }));
    const requestArb = fc.shuffledSubarray(allItems, { minLength: 1, maxLength: 12 });
    let n = 0;

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIXTURES), injectionsArb, pickArb, pickArb, requestArb, async (f, injections, pickA, pickB, requested) => {
        const vin = vinFor(f.manufacturer, ++n);
        const adapter = services.adapters.get(f.manufacturer)!;
        // Two consumers with the vehicle activated and consented, each with its own items and webhook.
        const subs = [];
        for (const pick of [pickA, pickB]) {
          const c = await addConsumer(h.t, { dataItems: pick.items });
          const put = await app.inject({
            method: 'PUT', url: '/push/v1/webhook', headers: c.headers, payload: { url: h.receiver.url, items: pick.watched, minIntervalSeconds: 1 },
          });
          expect(put.statusCode, put.body).toBe(200);
          await setVehicle(h.t, c, vin);
          await giveConsent(h.t, c, vin);
          subs.push({ c, ...pick });
        }

        const points = await cleanPoints(services, f, vin);
        const dirty = inject(withVin(f, vin), injections, READ[f.manufacturer]);
        expect((await processBatch(services, h.fanout, [toRawMessage(f, dirty.body, RECEIVED_AT)])).quarantined).toBe(0);
        const leaked = (text: string) => dirty.markers.filter((m) => text.includes(m));

        for (const s of subs) {
          const { subscriptionId } = s.c;
          // A message type the manifest marks `push: false` (a past event) is stored, never pushed.
          const pushesAtAll = adapter.manifest.messageTypes[f.messageType]?.push !== false;
          const pushable = (item: string) => pushesAtAll && s.items.includes(item) && (pushItems.has(item) || s.watched.includes(item));

          // Fan-out: one delivery row per point of a subscribed event or watched update, no other.
          const rows = await store.deliveries.list({ subscriptionId, limit: 1000 });
          expect(rows.map((r) => `${r.item}@${r.timestampMs}`).sort()).toEqual(points.filter((p) => pushable(p.item)).map((p) => `${p.item}@${p.timestampMs}`).sort());
          expect(undeclared(services, rows)).toEqual([]);
          expectedPushes.set(subscriptionId, rows.length);

          // Webhooks received: each about this VIN and one item the subscription covers, with
          // the payload the clean message gives.
          await waitFor(() => received(subscriptionId).length >= rows.length, 10_000, `${rows.length} webhooks`);
          for (const { text, json } of received(subscriptionId)) {
            const [entry] = json.inVehicleResponse.inVehicleData;
            expect(entry.identifier.value).toBe(vin);
            const [item, ...more] = Object.keys(entry.response);
            expect(more).toEqual([]);
            expect(pushable(item!), `webhook item ${item}`).toBe(true);
            const sent = entry.response[item!].dataPoint;
            expect(points.some((p) => p.item === item && isDeepStrictEqual(p.payload, sent)), `webhook payload ${JSON.stringify(sent)} is a clean one`).toBe(true);
            expect(leaked(text)).toEqual([]);
          }

          // Pull: items outside the subscription are refused as a whole (api-contract section 1) ...
          const ask = (items: string[]) =>
            app.inject({ method: 'POST', url: '/delivery/v1/in-vehicle', headers: s.c.headers, payload: deliveryBody([vin], items) });
          const outside = requested.filter((i) => !s.items.includes(i));
          const covered = requested.filter((i) => s.items.includes(i));
          if (outside.length > 0) {
            const refused = await ask(requested);
            expect(refused.statusCode).toBe(400);
            expect(refused.json().reasonText).toBe(`Items ${outside.join(',')} are not covered by subscription or incorrect names provided.`);
            expect(refused.body).not.toContain('dataPoint');
          }
          // ... and the covered ones answer each item asked, data only for those (docs/delivery-errors.md).
          if (covered.length > 0) {
            const res = await ask(covered);
            expect(res.statusCode).toBe(200);
            const [entry] = res.json().inVehicleData;
            expect(Object.keys(entry.response)).toEqual(covered);
            for (const item of covered) {
              const latest = points.filter((p) => p.item === item).sort((a, b) => b.timestampMs - a.timestampMs)[0];
              const answer = entry.response[item];
              if (pushItems.has(item)) expect(answer.error.code).toBe('CAR.VE.909');
              else if (latest) expect(answer).toEqual({ dataPoint: latest.payload });
              else expect(answer.error.code).toBe(suppliedItems(services, adapter.manifest.id, vin)?.has(item) ? 'CAR.VE.908' : 'CAR.VE.910');
            }
            expect(leaked(res.body)).toEqual([]);
          }

          // Location in particular: never to a subscription that does not list it.
          if (!s.items.includes('geolocation')) {
            expect(rows.some((r) => r.item === 'geolocation')).toBe(false);
            expect(received(subscriptionId).some((r) => 'geolocation' in r.json.inVehicleResponse.inVehicleData[0].response)).toBe(false);
          }
        }
      }),
      { numRuns: 30 },
    );

    // Nothing arrives late or for anyone else: per subscription exactly its delivery rows.
    await new Promise((r) => setTimeout(r, 300));
    const counts = new Map<string, number>();
    for (const r of h.receiver.requests) {
      const id = JSON.parse(r.body).subscriptionId as string;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, got] of counts) expect(got, `webhooks of ${id}`).toBe(expectedPushes.get(id));
  }, 60_000);
});
