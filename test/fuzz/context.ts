import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../src/crypto.ts';
import { addConsumer, type TestApp } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';
import type { FuzzContext } from './requests.ts';

export const FUZZ_VINS = ['V1RTUALV1N0000001', 'V1RTUALV1N0000S06', 'BRLAU1EV0N1000001'];

/**
 * Two consumers, and for the first one vehicles, consents, data points, a delivery and a
 * quarantined message, so generated requests find real resources as often as missing ones.
 */
export async function fuzzContext(t: TestApp): Promise<FuzzContext> {
  const { store, clock, catalog, secrets } = t.services;
  const a = await addConsumer(t);
  const b = await addConsumer(t);
  const at = clock.now().toISOString();
  const ids: string[] = [a.consumerId, a.subscriptionId, b.consumerId, b.subscriptionId];
  for (const vin of FUZZ_VINS) {
    const manufacturer = vin.startsWith('BRL') ? 'borealis' : 'virtual';
    await store.vehicles.upsert({ subscriptionId: a.subscriptionId, vin, manufacturer, status: 'ACTIVATED', createdAt: at, updatedAt: at });
    const consentId = randomUUID();
    ids.push(consentId);
    await store.consents.create(
      activeConsentRecord(at, {
        consentId, consumerId: a.consumerId, subscriptionId: a.subscriptionId, vin, manufacturer,
        dataItems: ['mileage'], grantedItems: ['mileage'], codeHash: sha256Hex(consentId),
      }),
    );
    await store.dataPoints.insertMany([
      { vin, item: 'mileage', timestampMs: Date.parse(at) - 60_000, payload: { value: 1234.5, unit: 'km', timestamp: new Date(Date.parse(at) - 60_000).toISOString() }, manufacturer, mappingVersion: 'fuzz', receivedAt: at },
    ]);
    const transactionId = randomUUID();
    ids.push(transactionId);
    await store.deliveries.insertIfAbsent({
      transactionId, subscriptionId: a.subscriptionId, vin, item: 'accidentautomatic', kind: 'event', timestampMs: 1, payload: { receivedAt: at },
      status: 'DEAD', attempts: [], lastError: 'fuzz', nextAttemptAt: null, createdAt: at, updatedAt: at,
    });
  }
  const quarantineId = `q${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  ids.push(quarantineId);
  await store.quarantine.put({
    id: quarantineId, manufacturer: 'virtual', messageType: 'telemetry', code: 'DECODE_FAILED', reason: 'fuzz', mappingVersion: null, vin: null,
    topic: null, raw: 'not json', rawEncoding: 'utf8', rawTruncated: false, receivedAt: at, quarantinedAt: at, lastFailedAt: at, failures: 1,
  });
  await store.webhooks.put({
    subscriptionId: a.subscriptionId, url: 'https://203.0.113.7/in', secrets: [{ sealed: secrets.encrypt('whsec_ZnV6eg=='), createdAt: at, expiresAt: null }],
    authorizationSealed: null, items: [], minIntervalSeconds: 60, notices: [], status: 'ENABLED', disabledReason: null, failingSince: null, createdAt: at, updatedAt: at,
  });
  return { a, b, vins: FUZZ_VINS, items: catalog.list().map((e) => e.technicalName), ids, adminToken: 'test-admin-token' };
}

/** Runs per property: modest in CI (the whole suite stays near a minute on two cores); raise with FUZZ_RUNS. */
export const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 50);
