/**
 * `npm run bench:store`: the store's two layouts side by side, on the files bench:store-build
 * grew (BENCH_DATA, default /work/bench-data: store-old/ with the layout before history
 * buckets, store-new/ with the service's), in the same run:
 * - bytes on disk per stored item (file and WAL over items; per table from SQLite's dbstat);
 * - history pages of 100 points (the history API's page) for a dense item (in every message)
 *   and a sparse item (in every 10th message's time, a message of its own), at a random upper
 *   bound within each vehicle's history: p50 and p99 of BENCH_PAGES pages (default 300) per
 *   case, with the file in the page cache (warmed by a first pass), and with the file evicted
 *   before every page: `dd iflag=nocache count=0` asks the kernel to drop the file's cached
 *   pages (posix_fadvise DONTNEED), and `PRAGMA shrink_memory` empties SQLite's own cache;
 *   then the cached cases again with the file memory-mapped (BENCH_MMAP_MB, default 8192: what
 *   SQLITE_MMAP_MB sets in the service);
 * - delivery's store read: the latest payloads of 10 vehicles x 20 items (latestPayloadsJson,
 *   what a delivery request reads when its answer is not cached), p50/p99 over BENCH_PAGES reads;
 * - the cost of writing into the full file: BENCH_WRITE_MESSAGES messages (default 4,000) of
 *   30 items, as bench:store-build writes them (after its last round, so every point is new),
 *   per message: wall time, CPU time (user and system) and bytes the process wrote to disk
 *   (/proc/self/io write_bytes: the WAL and its checkpoints), so the layouts compare even on a
 *   loaded machine, and (new layout) what laying those messages out next to their vehicles'
 *   earlier history costs per bucket (clusterHistory, the service's housekeeping). It grows the
 *   files a little.
 * The machine is shared: the load average is printed with the figures.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { DataPoint, DataPointRepo } from '../src/store/contract.ts';
import { createSqliteDataPointRepo } from '../src/store/sqlite/data-points.ts';
import { migrateSqliteStore } from '../src/store/sqlite/migrate-store.ts';
import { createLegacySqliteDataPointRepo } from './legacy-sqlite-data-points.ts';
import { BENCH_T0, storeFile } from './store-build.ts';
import { DENSE_ITEM, MESSAGE_INTERVAL_MS, SPARSE_ITEM, messagePoints, storeBenchVin, templatePoints } from './store-points.ts';

const PAGES = Number(process.env.BENCH_PAGES ?? 300);
const VINS = Number(process.env.BENCH_VINS ?? 5000);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

interface Layout {
  name: 'old' | 'new';
  file: string;
  db: Database.Database;
  repo: DataPointRepo;
  items: number;
  rounds: number;
}

async function openLayout(name: 'old' | 'new'): Promise<Layout | null> {
  const file = storeFile(name);
  if (!existsSync(file)) return null;
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const repo = name === 'old' ? createLegacySqliteDataPointRepo(db, 5000) : createSqliteDataPointRepo(db, 5000);
  const items = await repo.count();
  const rounds = Number(existsSync(`${file}.progress`) ? execFileSync('cat', [`${file}.progress`]).toString() : '0');
  return { name, file, db, repo, items, rounds };
}

function sizes(l: Layout): string {
  const bytes = statSync(l.file).size + (existsSync(`${l.file}-wal`) ? statSync(`${l.file}-wal`).size : 0);
  let tables = '';
  try {
    const rows = l.db.prepare<[], { name: string; bytes: number }>('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
    tables = rows
      .filter((r) => r.bytes / l.items >= 0.5)
      .map((r) => `${r.name} ${(r.bytes / l.items).toFixed(1)}`)
      .join(', ');
  } catch {
    tables = '(dbstat not available)';
  }
  return `${l.name}: ${(l.items / 1e6).toFixed(2)} M items, ${(bytes / 1e9).toFixed(2)} GB, ${(bytes / l.items).toFixed(1)} bytes/item [${tables}]`;
}

function evict(l: Layout): void {
  for (const f of [l.file, `${l.file}-wal`]) if (existsSync(f)) execFileSync('dd', [`if=${f}`, 'iflag=nocache', 'count=0', 'status=none']);
  l.db.pragma('shrink_memory');
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function pages(l: Layout, item: string, evicted: boolean, seed: number) {
  // The same vehicles and bounds for both layouts (a simple deterministic sequence).
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < PAGES; i++) {
    const v = Math.floor(next() * VINS);
    const toMs = BENCH_T0 + Math.floor((0.3 + 0.7 * next()) * l.rounds) * MESSAGE_INTERVAL_MS + VINS;
    if (evicted) evict(l);
    const t0 = performance.now();
    const page = await l.repo.history({ vin: storeBenchVin(v), item, toMs, limit: 100 });
    times.push(performance.now() - t0);
    points += page.items.length;
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99), avgPoints: points / PAGES };
}

const WRITE_MESSAGES = Number(process.env.BENCH_WRITE_MESSAGES ?? 4000);

function writtenBytes(): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

async function writeCost(l: Layout, template: DataPoint[]): Promise<string> {
  // Times after the build's last round, a fresh range per run (the files keep what was written).
  const base = BENCH_T0 + (l.rounds + 10) * MESSAGE_INTERVAL_MS + (Date.now() % 1e9) * 10;
  const batches: DataPoint[][] = [];
  for (let i = 0; i < WRITE_MESSAGES; i += 200) {
    const batch: DataPoint[] = [];
    for (let k = i; k < Math.min(WRITE_MESSAGES, i + 200); k++) batch.push(...messagePoints(template, storeBenchVin(k % VINS), base + Math.floor(k / VINS) * MESSAGE_INTERVAL_MS + (k % VINS), k));
    batches.push(batch);
  }
  // The first fifth warms up (the JIT, the caches) and is not counted.
  const warm = Math.ceil(batches.length / 5);
  for (const b of batches.splice(0, warm)) await l.repo.insertMany(b);
  const counted = batches.length * 200;
  const io0 = writtenBytes();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let items = 0;
  for (const b of batches) items += (await l.repo.insertMany(b)).length;
  l.db.pragma('wal_checkpoint(PASSIVE)');
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const io = writtenBytes() - io0;
  const per = (x: number) => (x / counted).toFixed(0);
  return `${l.name}: ${items} items, ${((items / wall) * 1000).toFixed(0)} items/s wall; per message: ${per(wall * 1000)} µs wall, CPU ${per(cpu.user)} µs user + ${per(cpu.system)} µs system, ${(io / counted / 1024).toFixed(1)} KB written (${(io / items).toFixed(0)} bytes per item)`;
}

/** The housekeeping's cost of laying out what writeCost just wrote (and what the build left unclustered). */
async function clusterCost(l: Layout): Promise<string> {
  const io0 = writtenBytes();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const moved = await l.repo.clusterHistory();
  l.db.pragma('wal_checkpoint(PASSIVE)');
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const io = writtenBytes() - io0;
  const per = (x: number) => (moved > 0 ? (x / moved).toFixed(0) : '-');
  return `${l.name}, then laying out (clusterHistory) ${moved} buckets: per bucket ${per(wall * 1000)} µs wall (with the pauses that pace it), CPU ${per(cpu.user)} µs user + ${per(cpu.system)} µs system, ${moved > 0 ? (io / moved / 1024).toFixed(1) : '-'} KB written`;
}

async function latestReads(l: Layout, items: string[]) {
  const times: number[] = [];
  let pairs = 0;
  for (let i = 0; i < PAGES; i++) {
    const vins = Array.from({ length: 10 }, (_, k) => storeBenchVin((i * 10 + k * 487) % VINS));
    const t0 = performance.now();
    pairs += (await l.repo.latestPayloadsJson(vins, items)).length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return `${l.name}: p50 ${pct(times, 50).toFixed(3)} ms  p99 ${pct(times, 99).toFixed(3)} ms  (${(pairs / PAGES).toFixed(0)} payloads per read)`;
}

async function main(): Promise<void> {
  const wanted = (process.env.BENCH_LAYOUTS ?? 'old,new').split(',');
  // A bucket store grown by an earlier version gets this version's indexes first, as the service would.
  if (wanted.includes('new') && existsSync(storeFile('new'))) await migrateSqliteStore(storeFile('new'), { log: (m) => console.log(m) });
  const layouts = (await Promise.all((['old', 'new'] as const).filter((n) => wanted.includes(n)).map(openLayout))).filter((l): l is Layout => l !== null);
  if (layouts.length === 0) throw new Error('no store to measure: run npm run bench:store-build (LAYOUT=old and new) first');
  console.log(`bench:store  load average ${load()} (2 cores, shared)`);
  console.log('bytes on disk per stored item (file + WAL; per table/index in brackets):');
  for (const l of layouts) console.log(`  ${sizes(l)}`);
  const [old, neu] = [layouts.find((l) => l.name === 'old'), layouts.find((l) => l.name === 'new')];
  if (old && neu) {
    const per = (l: Layout) => (statSync(l.file).size + (existsSync(`${l.file}-wal`) ? statSync(`${l.file}-wal`).size : 0)) / l.items;
    console.log(`  new / old: ${(per(neu) / per(old)).toFixed(3)} (target <= 0.333)`);
  }
  console.log(`history pages of 100 points, ${PAGES} pages per case, random vehicle and upper bound:`);
  for (const evicted of [false, true]) {
    for (const item of [DENSE_ITEM, SPARSE_ITEM]) {
      for (const l of layouts) {
        if (!evicted) await pages(l, item, false, 7); // warm the cache with the same pages
        const r = await pages(l, item, evicted, 7);
        console.log(
          `  ${evicted ? 'evicted' : 'cached '}  ${item === DENSE_ITEM ? 'dense ' : 'sparse'} ${l.name}: p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  (${r.avgPoints.toFixed(0)} points per page)  load ${load()}`,
        );
      }
    }
  }
  // The same cached pages with the file read through a memory mapping (SQLITE_MMAP_MB), both layouts.
  const mmapMb = Number(process.env.BENCH_MMAP_MB ?? 8192);
  for (const l of layouts) l.db.pragma(`mmap_size = ${mmapMb * 1024 * 1024}`);
  for (const item of [DENSE_ITEM, SPARSE_ITEM]) {
    for (const l of layouts) {
      await pages(l, item, false, 7);
      const r = await pages(l, item, false, 7);
      console.log(
        `  mmap    ${item === DENSE_ITEM ? 'dense ' : 'sparse'} ${l.name}: p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  (cached, SQLITE_MMAP_MB=${mmapMb})  load ${load()}`,
      );
    }
  }
  for (const l of layouts) l.db.pragma('mmap_size = 0');
  const template = await templatePoints();
  const items = template.slice(0, 20).map((p) => p.item);
  console.log(`delivery's store read, latest payloads of 10 vehicles x 20 items, ${PAGES} reads (after a warm-up pass):`);
  for (const l of layouts) {
    await latestReads(l, items);
    console.log(`  ${await latestReads(l, items)}  load ${load()}`);
  }
  console.log(`writing ${WRITE_MESSAGES} more 30-item messages into each full file (200 per insertMany), load ${load()}:`);
  for (const l of layouts) console.log(`  ${await writeCost(l, template)}  load ${load()}`);
  if (neu) console.log(`  ${await clusterCost(neu)}  load ${load()}`);
  for (const l of layouts) l.db.close();
}

await main();
