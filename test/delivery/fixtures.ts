import type { TestConsumer } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';
import type { TestServices } from '../helpers/services.ts';
import type { DataPoint, VehicleStatus } from '../../src/store/contract.ts';

/** Virtual VINs used across the delivery tests. */
export const VIN1 = 'V1RTUALV1N0000001';
export const VIN2 = 'V1RTUALV1N0000002';
export const VIN3 = 'V1RTUALV1N0000003';
export const VIN4 = 'V1RTUALV1N0000004';

/** Writes the vehicle's activation row straight to the store (management is tested elsewhere). */
export async function setVehicle(t: TestServices, c: TestConsumer, vin: string, status: VehicleStatus = 'ACTIVATED'): Promise<void> {
  const at = t.services.clock.now().toISOString();
  await t.services.store.vehicles.upsert({
    subscriptionId: c.subscriptionId,
    vin,
    manufacturer: t.services.adapters.forVin(vin)?.manifest.id ?? null,
    status,
    createdAt: at,
    updatedAt: at,
  });
}

/**
 * An ACTIVE consent for (subscription, VIN), written through the store contract the way the
 * consent flow leaves it after the manufacturer step. Returns its id (for revocation).
 */
export async function giveConsent(t: TestServices, c: TestConsumer, vin: string): Promise<string> {
  const record = activeConsentRecord(t.services.clock.now().toISOString(), {
    consumerId: c.consumerId,
    subscriptionId: c.subscriptionId,
    vin,
    manufacturer: t.services.adapters.forVin(vin)?.manifest.id ?? null,
  });
  await t.services.store.consents.create(record);
  return record.consentId;
}

/** A valid catalog payload for a few pull items, at a given time. */
export function payloadFor(item: string, at: Date, value = 42): Record<string, unknown> {
  const timestamp = at.toISOString();
  switch (item) {
    case 'batteryvoltage':
      return { value: 12 + value / 100, unit: 'V', timestamp };
    case 'coolanttemperature':
      return { value, unit: 'C', timestamp };
    case 'sochighlevel':
      return { value, unit: 'PERCENTAGE', timestamp };
    case 'chargingstatus':
      return { value: 'ACTIVE', timestamp };
    case 'crashseverity':
      return { value: 1, timestamp };
    default:
      throw new Error(`no fixture payload for ${item}`);
  }
}

/** Stores data points with insertMany, as the pipeline does. */
export async function seedPoints(t: TestServices, vin: string, items: string[], at: Date, value = 42): Promise<DataPoint[]> {
  const points: DataPoint[] = items.map((item) => ({
    vin,
    item,
    timestampMs: at.getTime(),
    payload: payloadFor(item, at, value),
    manufacturer: 'virtual',
    mappingVersion: 'test',
    receivedAt: at.toISOString(),
  }));
  await t.services.store.dataPoints.insertMany(points);
  return points;
}

export function deliveryBody(vins: (string | { type: string; value: string })[], items: string[]) {
  return {
    version: '1.0',
    vehicles: vins.map((v) => ({ identifier: typeof v === 'string' ? { type: 'VIN', value: v } : v })),
    dataItems: items,
  };
}
