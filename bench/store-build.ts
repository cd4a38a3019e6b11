/**
 * `npm run bench:store-build`: grows a store file for the store benchmarks (bench/store-model.ts,
 * bench:ingest with BENCH_STORE_DIR) to BENCH_ITEMS data items (default 20,100,000) of
 * BENCH_VINS vehicles (default 5,000), 30-item messages every 5 s per vehicle, interleaved
 * across vehicles as a fleet sends them, in insertMany calls of 200 messages (the pipeline's
 * batch), plus a sparse event item in every 10th message's time. LAYOUT=new (default) writes
 * with the service's store, LAYOUT=old with the layout before history buckets
 * (bench/legacy-sqlite-data-points.ts), and lays the history out as the service's housekeeping
 * does (clusterHistory) every BENCH_CLUSTER_ROUNDS rounds (default 12: HISTORY_CLUSTER_INTERVAL_S's
 * 60 s over the 5 s between a vehicle's messages; 0: never). The file goes to BENCH_DATA (default /work/bench-data)
 * /store-<layout>/store.sqlite, never into the repository. Resumes where a previous run stopped;
 * prints the insert rate per million items as it grows.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataPoint, DataPointRepo } from '../src/store/contract.ts';
import { openSqliteStore } from '../src/store/sqlite/open.ts';
import { createLegacySqliteDataPointRepo } from './legacy-sqlite-data-points.ts';
import { MESSAGE_INTERVAL_MS, SPARSE_EVERY, messagePoints, sparsePoint, storeBenchVin, templatePoints } from './store-points.ts';

const LAYOUT = process.env.LAYOUT === 'old' ? 'old' : 'new';
const ITEMS = Number(process.env.BENCH_ITEMS ?? 20_100_000);
const VINS = Number(process.env.BENCH_VINS ?? 5000);
const BATCH = 200;
const CLUSTER_ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 12);
export const BENCH_T0 = Date.parse('2026-01-01T00:00:00.000Z');

export function storeFile(layout: 'old' | 'new'): string {
  return join(process.env.BENCH_DATA ?? '/work/bench-data', `store-${layout}`, 'store.sqlite');
}

async function main(): Promise<void> {
  const file = storeFile(LAYOUT);
  mkdirSync(join(file, '..'), { recursive: true });
  const progressFile = `${file}.progress`;
  let round = existsSync(progressFile) ? Number(readFileSync(progressFile, 'utf8')) : 0;
  let repo: DataPointRepo;
  let close: () => Promise<void>;
  if (LAYOUT === 'new') {
    const store = openSqliteStore(file);
    repo = store.dataPoints;
    close = () => store.close();
  } else {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('secure_delete = ON');
    repo = createLegacySqliteDataPointRepo(db, 5000);
    close = async () => {
      db.close();
    };
  }
  const template = await templatePoints();
  const rounds = Math.ceil(ITEMS / (VINS * template.length));
  console.log(`bench:store-build ${LAYOUT} layout -> ${file}: ${rounds} messages per vehicle x ${VINS} vehicles x ${template.length} items (+ a sparse item every ${SPARSE_EVERY} messages); from round ${round}`);
  let items = round * VINS * (template.length + 1 / SPARSE_EVERY);
  let mark = Math.floor(items / 1e6);
  let t = performance.now();
  let itemsAtMark = items;
  for (; round < rounds; round++) {
    let batch: DataPoint[] = [];
    for (let v = 0; v < VINS; v++) {
      const ms = BENCH_T0 + round * MESSAGE_INTERVAL_MS + v;
      batch.push(...messagePoints(template, storeBenchVin(v), ms, round));
      if (round % SPARSE_EVERY === 0) batch.push(sparsePoint(storeBenchVin(v), ms + 1));
      if ((v + 1) % BATCH === 0 || v === VINS - 1) {
        items += (await repo.insertMany(batch)).length;
        batch = [];
      }
      if (Math.floor(items / 1e6) > mark) {
        const now = performance.now();
        console.log(`  ${(items / 1e6).toFixed(1)} M items: ${(((items - itemsAtMark) / (now - t)) * 1000).toFixed(0)} items/s over the last million`);
        mark = Math.floor(items / 1e6);
        t = now;
        itemsAtMark = items;
      }
    }
    if (CLUSTER_ROUNDS > 0 && (round + 1) % CLUSTER_ROUNDS === 0) {
      const t0 = performance.now();
      const moved = await repo.clusterHistory();
      if (moved > 0) console.log(`  laid out ${moved} buckets in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    writeFileSync(progressFile, String(round + 1));
  }
  // What arrived since the last run stays as written, as the newest minute does in the service.
  await close();
  console.log(`done: ${items.toFixed(0)} items`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
