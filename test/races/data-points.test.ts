import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataPoint, Store } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { createRaceLab } from './race-lab.ts';

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const ITEMS = ['mileage', 'speed'];

interface Drawn {
  vin: number;
  item: string;
  offsetS: number;
  value: number;
}
const drawnPoint = fc.record({ vin: fc.nat(1), item: fc.constantFrom(...ITEMS), offsetS: fc.nat(5), value: fc.nat(1000) });
/** A pipeline worker's batch, written through one of two connections (two processes). */
const drawnBatch = fc.record({ writer: fc.nat(1), points: fc.array(drawnPoint, { minLength: 1, maxLength: 8 }) });

const keyOf = (p: DataPoint) => `${p.vin}|${p.item}|${p.timestampMs}`;

/**
 * Upserts are idempotent, under fc.scheduler: overlapping batches of data points (redeliveries that
 * carry the same (vin, item, timestamp) again, here with other values so the winner shows) are
 * written concurrently through two connections to one SQLite file, in every order the scheduler
 * picks. The store contract says: a point already stored is skipped, the first write stays, each
 * point is reported new exactly once, and latest moves only forward in time.
 */
describe('races: concurrent overlapping insertMany', () => {
  const lab = createRaceLab();
  let dir: string;
  let stores: Store[];
  let raced: Store[];
  let run = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-race-'));
    const file = join(dir, 'store.db');
    stores = [openSqliteStore(file), openSqliteStore(file)];
    raced = stores.map((s) => lab.wrap(s));
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('no duplicate history rows, each point reported new once, the first write stays, latest is the newest', async () => {
    const orders = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(drawnBatch, { minLength: 2, maxLength: 4 }), async (s, drawn) => {
        // Fresh VINs per run: the runs share one database.
        const vins = [0, 1].map((v) => `WVWZZZ1JZR${String(++run).padStart(6, '0')}${v}`);
        const toPoint = (d: Drawn): DataPoint => {
          const at = new Date(BASE + d.offsetS * 1000).toISOString();
          return { vin: vins[d.vin]!, item: d.item, timestampMs: BASE + d.offsetS * 1000, payload: { value: d.value, unit: 'km', timestamp: at }, manufacturer: 'virtual', mappingVersion: '1.0.0', receivedAt: at };
        };
        const batches = drawn.map((b) => ({ writer: b.writer, points: b.points.map(toPoint) }));
        const rowsBefore = await stores[0]!.dataPoints.count();

        lab.begin(s);
        let reported: DataPoint[][];
        try {
          const writes = batches.map((b, i) => lab.as(`batch${i}`, () => raced[b.writer]!.dataPoints.insertMany(b.points)));
          reported = await s.waitFor(Promise.all(writes));
          await s.waitIdle();
        } finally {
          lab.end();
        }

        // The model: batches in the order their writes reached the database; the first write of a key stays.
        const order = batches.map((_, i) => i).sort((x, y) => lab.at(`batch${x}`, 'dataPoints.insertMany') - lab.at(`batch${y}`, 'dataPoints.insertMany'));
        orders.add(order.join());
        const stored = new Map<string, DataPoint>();
        const fresh = batches.map((): DataPoint[] => []);
        for (const i of order) {
          for (const p of batches[i]!.points) {
            if (stored.has(keyOf(p))) continue;
            stored.set(keyOf(p), p);
            fresh[i]!.push(p);
          }
        }

        expect(reported).toEqual(fresh);
        expect(await stores[1]!.dataPoints.count()).toBe(rowsBefore + stored.size);
        for (const vin of vins) {
          for (const item of ITEMS) {
            const mine = [...stored.values()].filter((p) => p.vin === vin && p.item === item).sort((x, y) => y.timestampMs - x.timestampMs);
            const history = await stores[0]!.dataPoints.history({ vin, item, limit: 1000 });
            expect(history.items).toEqual(mine);
            const latest = await stores[1]!.dataPoints.latest([vin], [item]);
            expect(latest).toEqual(mine.slice(0, 1));
          }
        }
      }),
      { numRuns: 100 },
    );
    // The scheduler really reordered the writes (guards against a wrapper that runs them in call order).
    expect([...orders].some((o) => o.startsWith('1') || o.startsWith('2') || o.startsWith('3'))).toBe(true);
  });
});
