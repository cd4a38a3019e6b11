import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseVehicleData } from '../../src/gdpr/erase.ts';
import type { DataPoint } from '../../src/store/contract.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/** Thirteen vehicles, as the virtual manufacturer runs them; ten are erased one after another. */
const VINS = Array.from({ length: 13 }, (_, i) => `V1RTUALV1N00000${String(i + 1).padStart(2, '0')}`);
const ERASED = VINS.slice(0, 10);
/** A value only this vehicle ever sent: its bytes must not stay anywhere either. */
const marker = (vin: string) => `marker-only-${vin.slice(-2)}-sent-this`;
const ITEMS = Array.from({ length: 20 }, (_, i) => `item${i}${'x'.repeat(i % 7)}`);
const T0 = Date.UTC(2026, 10, 25);

/** A fixed pseudo-random sequence: the same pages split and merge on every run. */
function sequence(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/**
 * One telemetry message of one vehicle at one time: most items, payloads of varying length
 * (what makes SQLite move cells between pages), as the pipeline stores them.
 */
function message(vin: string, step: number, random: () => number): DataPoint[] {
  return ITEMS.filter(() => random() >= 0.3).map((item, k) => ({
    vin,
    item,
    timestampMs: T0 + step * 10_000 + Math.floor(random() * 5000),
    payload: {
      value: k === 0 && ERASED.includes(vin) ? marker(vin) : Math.round(random() * 10_000) / 10,
      unit: 'u',
      timestamp: new Date(T0 + step * 10_000).toISOString(),
      note: 'n'.repeat(Math.floor(random() * 200)),
    },
    manufacturer: 'virtual',
    mappingVersion: 'v1',
    receivedAt: new Date(T0 + step * 10_000 + 500).toISOString(),
  }));
}

/** Every file under the data directory, its bytes upper-cased as latin1 text (SQLite's UTF-8 text is ASCII here). */
function filesUnder(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((file) => ({ file, text: readFileSync(file).toString('latin1').toUpperCase() }));
}

/**
 * An erased VIN must not stay readable in the database file: pages that SQLite rebuilds while it splits and merges b-tree pages keep
 * copies of cells in their unused space, which secure_delete does not clear; an erasure's own
 * deletes merge pages too. The erased VIN and its payloads stayed in the file. Many vehicles
 * in turn, enough rows that the tables and the unique index split, then erasures one by one.
 */
describe('erasure after interleaved ingestion leaves no byte of the VIN in any file of DATA_DIR', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices();
  });
  afterAll(async () => t.cleanup());

  it('finds neither an erased VIN nor a value only it sent, and keeps every other vehicle', async () => {
    const { dataPoints } = t.services.store;
    const random = sequence(1);
    const steps = 60;
    let batch: DataPoint[] = [];
    for (let step = 0; step < steps; step++) {
      for (const vin of VINS) {
        batch.push(...message(vin, step, random));
        // About twelve messages per stored batch, the vehicles in turn, as the pipeline writes them.
        if (batch.length >= 150) {
          await dataPoints.insertMany(batch);
          batch = [];
        }
      }
    }
    await dataPoints.insertMany(batch);
    const stored = await dataPoints.count();
    const before = filesUnder(t.dataDir);
    // The check means something only if the VINs and the markers were on disk before.
    for (const vin of ERASED) {
      expect(before.some((f) => f.text.includes(vin))).toBe(true);
      expect(before.some((f) => f.text.includes(marker(vin).toUpperCase()))).toBe(true);
    }

    let erasedPoints = 0;
    for (const [i, vin] of ERASED.entries()) {
      const receipt = await eraseVehicleData(t.services, vin);
      expect(receipt.erased.dataPoints).toBeGreaterThan(0);
      erasedPoints += receipt.erased.dataPoints;
      const gone = ERASED.slice(0, i + 1);
      const leaks = filesUnder(t.dataDir).flatMap(({ file, text }) =>
        gone.flatMap((v) => [v, marker(v).toUpperCase()]).filter((needle) => text.includes(needle)).map((needle) => `${needle} in ${file}`),
      );
      expect(leaks, `after erasing ${vin}`).toEqual([]);
    }
    const others = VINS.filter((v) => !ERASED.includes(v));
    expect(await dataPoints.count()).toBe(stored - erasedPoints);
    expect(await dataPoints.latest(others, ['item1x'])).toHaveLength(others.length);
    expect(filesUnder(t.dataDir).some((f) => f.text.includes(others[0]!))).toBe(true);
  });
});

describe('a SQLite file above SQLITE_ERASURE_VACUUM_MAX_MB', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices({ env: { SQLITE_ERASURE_VACUUM_MAX_MB: '0' } });
  });
  afterAll(async () => t.cleanup());

  it('is not rewritten, and the erasure says so in a warning that names no VIN', async () => {
    const vin = VINS[0]!;
    await t.services.store.dataPoints.insertMany(message(vin, 0, sequence(2)));
    const receipt = await eraseVehicleData(t.services, vin);
    expect(receipt.erased.dataPoints).toBeGreaterThan(0);
    const warnings = t.logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg)).toContainEqual(expect.stringContaining('was not rewritten'));
    expect(t.logs.join('')).not.toContain(vin);
  });
});
