import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/contract.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { racePoints, raceVins, RACE_HASHES } from './fixtures/sqlite-race-plan.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./fixtures/sqlite-race-worker.ts', import.meta.url));
const PROCESSES = 3;

interface WorkerResult {
  keysWon: string[];
  vinsWon: string[];
  pointsWon: string[];
  otherErrors: number;
}

/** Every contested key was won by exactly one process: the union is complete and disjoint. */
function expectExactlyOnce(wins: string[][], all: string[]): void {
  const flat = wins.flat();
  expect(flat).toHaveLength(all.length);
  expect(new Set(flat)).toEqual(new Set(all));
}

// Separate OS processes on one database file, as the service's roles run in production: the
// unique indexes and conditional updates, not in-process ordering, must decide every race.
describe('SQLite store shared by several processes', () => {
  let dir: string;
  let store: Store;
  let results: WorkerResult[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvd-race-'));
    const file = join(dir, 'store.sqlite');
    store = openSqliteStore(file);
    for (const vin of raceVins()) {
      await store.vehicles.upsert({ subscriptionId: 's-race', vin, manufacturer: 'virtual', status: 'PENDING_ACTIVATION', createdAt: '2024-05-01T00:00:00.000Z', updatedAt: '2024-05-01T00:00:00.000Z' });
    }
    // A common start time after every process has booted, so their writes really overlap.
    const startAt = Date.now() + 4000;
    const outputs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        run(process.execPath, ['--import', 'tsx', WORKER, file, String(i), String(startAt)], { timeout: 60_000 }),
      ),
    );
    results = outputs.map((o) => JSON.parse(o.stdout) as WorkerResult);
  }, 90_000);

  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Whether one phase is shared depends on the OS scheduler (on a loaded 2-core machine one
  // process can win a whole phase), so the check that a real race happened is over all phases.
  it('really raced: the phases were won in part by more than one process', () => {
    const winners = new Set<number>();
    for (const phase of ['keysWon', 'vinsWon', 'pointsWon'] as const) {
      results.forEach((r, i) => r[phase].length > 0 && winners.add(i));
    }
    expect(winners.size).toBeGreaterThan(1);
  });

  it('gives each API key hash to exactly one process, the others a DuplicateKeyError', async () => {
    for (const r of results) expect(r.otherErrors).toBe(0);
    expectExactlyOnce(results.map((r) => r.keysWon), RACE_HASHES);
  });

  it('lets exactly one process win each vehicle transition', async () => {
    expectExactlyOnce(results.map((r) => r.vinsWon), raceVins());
    expect((await store.vehicles.listBySubscription('s-race')).every((v) => v.status === 'ACTIVATED')).toBe(true);
  });

  it('stores each data point once and reports it new to exactly one process', async () => {
    const all = racePoints();
    expectExactlyOnce(results.map((r) => r.pointsWon), all.map((p) => `${p.vin}|${p.item}|${p.timestampMs}`));
    expect(await store.dataPoints.count()).toBe(all.length);
    const latest = await store.dataPoints.latest([...new Set(all.map((p) => p.vin))], ['mileage', 'vehiclespeed']);
    expect(latest).toHaveLength(40);
    expect(new Set(latest.map((p) => p.payload.value))).toEqual(new Set([59]));
  });
});
