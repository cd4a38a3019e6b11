import { randomUUID } from 'node:crypto';
import { newApiKey } from '../src/auth/api-keys.ts';
import type { Services } from '../src/services.ts';
import type { DataPoint } from '../src/store/contract.ts';
import { giveConsent, setVehicle } from '../test/delivery/fixtures.ts';
import type { TestServices } from '../test/helpers/services.ts';
import { BENCH_ITEM_NAMES, benchPayload } from './delivery-payloads.ts';

/** The ten VINs every benchmark request asks for. */
export const BENCH_VINS = Array.from({ length: 10 }, (_, i) => `V1RTUALV1N${String(i + 1).padStart(7, '0')}`);

/**
 * A consumer with a CONSENT subscription to the 20 benchmark items, the ten VINs activated and
 * consented, and one catalog-valid data point per (VIN, item). Returns the request headers.
 */
export async function seedBench(services: Services): Promise<Record<string, string>> {
  const { store, catalog } = services;
  const now = new Date();
  const consumerId = randomUUID();
  await store.consumers.create({ consumerId, name: 'bench', createdAt: now.toISOString() });
  const { apiKey, record } = newApiKey(consumerId, now);
  await store.consumers.addApiKey(record);
  const subscriptionId = randomUUID();
  await store.subscriptions.create({
    subscriptionId, consumerId, dataItems: BENCH_ITEM_NAMES, allowedRedirectUrls: [], legalBasis: 'CONSENT', createdAt: now.toISOString(),
  });
  const t = { services } as TestServices;
  const consumer = { consumerId, apiKey, subscriptionId, headers: {} };
  const points: DataPoint[] = [];
  for (const vin of BENCH_VINS) {
    await setVehicle(t, consumer, vin);
    await giveConsent(t, consumer, vin);
    for (const item of BENCH_ITEM_NAMES) {
      const payload = benchPayload(item, now.getTime() - 60_000, points.length);
      const check = catalog.validate(item, payload);
      if (!check.valid) throw new Error(`bench payload of ${item} is invalid: ${check.errors.join('; ')}`);
      points.push({ vin, item, timestampMs: now.getTime() - 60_000, payload, manufacturer: 'virtual', mappingVersion: 'bench', receivedAt: now.toISOString() });
    }
  }
  await store.dataPoints.insertMany(points);
  return { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-subscription-id': subscriptionId };
}

