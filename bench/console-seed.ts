import { randomUUID } from 'node:crypto';
import type { Services } from '../src/services.ts';
import type { DataPoint, QuarantinedMessage } from '../src/store/contract.ts';
import { activeConsentRecord } from '../test/helpers/consents.ts';

export interface ConsoleSeed {
  consumerId: string;
  subscriptionId: string;
  quarantineId: string;
  /** A VIN in the middle of the fleet (a page that is not the first). */
  middleVin: string;
  /** A vehicle with a week of mileage, one reading a minute (10,080 points): the heaviest history chart. */
  busyVin: string;
}

const HOUR_MS = 3_600_000;
/** Stored positions per vehicle: the map draws up to 40 of them. */
const TRACK = 40;

/** Every fifth vehicle is Borealis's, the rest the virtual manufacturer's. */
export const benchVin = (n: number) => (n % 5 === 0 ? `BRLAU1EV0N${String(n).padStart(7, '0')}` : `V1RTUALV1N${String(n).padStart(7, '0')}`);

function points(vin: string, manufacturer: string, now: number, n: number): DataPoint[] {
  const at = (ms: number) => new Date(ms).toISOString();
  const base = { vin, manufacturer, mappingVersion: 'bench@1', receivedAt: at(now) };
  const out: DataPoint[] = [
    { ...base, item: 'mileage', timestampMs: now, payload: { value: 10_000 + n, unit: 'km', timestamp: at(now) } },
    { ...base, item: 'sochighlevel', timestampMs: now, payload: { value: 50 + (n % 50), unit: 'PERCENTAGE', timestamp: at(now) } },
    { ...base, item: 'vehiclespeed', timestampMs: now, payload: { value: n % 130, unit: 'km/h', timestamp: at(now) } },
    { ...base, item: 'batteryvoltage', timestampMs: now, payload: { value: 12.4, unit: 'V', timestamp: at(now) } },
  ];
  for (let i = 0; i < TRACK; i++) {
    const t = now - (TRACK - i) * 60_000;
    out.push({ ...base, item: 'geolocation', timestampMs: t, payload: { geoSystem: 'WGS84', latitude: 48 + (n % 100) / 50 + i / 1000, longitude: 8 + (n % 97) / 50 + i / 1000, timestamp: at(t) } });
  }
  return out;
}

/**
 * A fleet of `vehicles` in the store, as the console meets it in production: each with data
 * (four latest values and 40 positions), an activation and a consent process (created over
 * the last week), plus 2,000 quarantined messages and 2,000 dead deliveries.
 */
export async function seedConsoleFleet(services: Services, vehicles: number): Promise<ConsoleSeed> {
  const { store } = services;
  const now = Date.now();
  const iso = new Date(now).toISOString();
  const consumerId = randomUUID();
  await store.consumers.create({ consumerId, name: 'bench', createdAt: iso });
  const subscriptionId = randomUUID();
  await store.subscriptions.create({ subscriptionId, consumerId, dataItems: ['crashseverity', 'mileage'], allowedRedirectUrls: [], legalBasis: 'CONSENT', createdAt: iso });
  let batch: DataPoint[] = [];
  for (let n = 1; n <= vehicles; n++) {
    const vin = benchVin(n);
    const manufacturer = vin.startsWith('BRL') ? 'borealis' : 'virtual';
    batch.push(...points(vin, manufacturer, now, n));
    if (batch.length >= 5000) {
      await store.dataPoints.insertMany(batch);
      batch = [];
    }
    await store.vehicles.upsert({ subscriptionId, vin, manufacturer, status: 'ACTIVATED', createdAt: iso, updatedAt: iso });
    const created = new Date(now - (n % 168) * HOUR_MS).toISOString();
    const state = n % 7 === 0 ? 'REVOKED' : n % 11 === 0 ? 'REJECTED' : 'ACTIVE';
    await store.consents.create(activeConsentRecord(created, { consumerId, subscriptionId, vin, manufacturer, state, ...(state === 'REJECTED' ? { consentGivenAt: null, activatedAt: null } : {}) }));
  }
  await store.dataPoints.insertMany(batch);
  let quarantineId = '';
  for (let i = 0; i < 2000; i++) {
    const at = new Date(now - i * 1000).toISOString();
    const entry: QuarantinedMessage = {
      id: `bench-${i}`, manufacturer: 'virtual', messageType: 'telemetry', code: i % 2 ? 'SCHEMA_VIOLATION' : 'MAPPING_FAILED', reason: 'fuellevel: must be <= 100',
      mappingVersion: 'telemetry.jsonata@bench', vin: benchVin(i + 1), topic: null, raw: JSON.stringify({ vin: benchVin(i + 1), fuel: 120 + i }), rawEncoding: 'utf8', rawTruncated: false,
      receivedAt: at, quarantinedAt: at, lastFailedAt: at, failures: 1,
    };
    await store.quarantine.put(entry);
    quarantineId ||= entry.id;
  }
  for (let i = 0; i < 2000; i++) {
    const at = new Date(now - i * 1000).toISOString();
    await store.deliveries.insertIfAbsent({
      transactionId: randomUUID(), subscriptionId, vin: benchVin(i + 1), item: 'crashseverity', kind: 'event', timestampMs: now - i * 1000,
      payload: { value: 2, timestamp: at }, status: 'DEAD', attempts: [{ at, statusCode: 503, error: 'HTTP 503', durationMs: 20 }],
      lastError: 'HTTP 503', nextAttemptAt: null, createdAt: at, updatedAt: at,
    });
  }
  // A week of mileage, one reading a minute, for one vehicle.
  const busyVin = benchVin(1);
  const week: DataPoint[] = [];
  for (let m = 7 * 24 * 60; m >= 1; m--) {
    const t = now - m * 60_000;
    week.push({ vin: busyVin, item: 'mileage', timestampMs: t, payload: { value: 10_000 - m / 60, unit: 'km', timestamp: new Date(t).toISOString() }, manufacturer: 'virtual', mappingVersion: 'bench@1', receivedAt: new Date(t).toISOString() });
  }
  for (let i = 0; i < week.length; i += 5000) await store.dataPoints.insertMany(week.slice(i, i + 5000));
  return { consumerId, subscriptionId, quarantineId, middleVin: benchVin(Math.floor(vehicles / 2)), busyVin };
}
