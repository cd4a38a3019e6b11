import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseVehicleData } from '../../src/gdpr/erase.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

const X = 'V1RTUALV1N0000001';
const Y = 'V1RTUALV1N0000002';

function points(vin: string): DataPoint[] {
  return Array.from({ length: 300 }, (_, i) => ({
    vin,
    item: 'batteryvoltage',
    timestampMs: Date.UTC(2026, 10, 25) + i * 60_000,
    payload: { value: 12.5, unit: 'V', timestamp: new Date(Date.UTC(2026, 10, 25) + i * 60_000).toISOString() },
    manufacturer: 'virtual',
    mappingVersion: 'test',
    receivedAt: '2026-11-25T00:00:00.000Z',
  }));
}

/** Every byte the embedded store keeps on disk: the database file and its write-ahead log. */
function storeBytes(dataDir: string): string {
  return ['store.sqlite', 'store.sqlite-wal']
    .map((f) => join(dataDir, f))
    .filter(existsSync)
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

describe('erasure leaves no trace of the VIN in the SQLite files', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices();
  });
  afterAll(async () => t.cleanup());

  it('zeroes deleted rows and truncates the WAL, keeping other vehicles', async () => {
    await t.services.store.dataPoints.insertMany([...points(X), ...points(Y)]);
    expect(storeBytes(t.dataDir)).toContain(X);
    await eraseVehicleData(t.services, X);
    const bytes = storeBytes(t.dataDir);
    expect(bytes).not.toContain(X);
    expect(bytes).toContain(Y);
    expect(await t.services.store.dataPoints.latest([Y], ['batteryvoltage'])).toHaveLength(1);
  });
});
