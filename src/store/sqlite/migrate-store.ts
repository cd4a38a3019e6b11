import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { DataPoint } from '../contract.ts';
import { DATA_POINTS_SCHEMA } from './data-points.ts';
import { createHistoryDictionary } from './history-dictionary.ts';
import { createBucketWriter, type PointToWrite } from './history-write.ts';
import { encodeLatestRow, latestEntry, latestSummary, type LatestEntry } from './latest-row.ts';
import { packPayload } from './payload-text.ts';
import { STORE_SCHEMA_VERSION, isBucketVersion, schemaState, type SchemaState } from './schema-version.ts';
import { upgradeBucketIndexes } from './upgrade-bucket-indexes.ts';

export interface MigrationProgress {
  /** History rows of the previous layout migrated so far (including earlier, interrupted runs). */
  rows: number;
  /** The previous layout's highest history rowid: rows / total is the share done. */
  total: number;
}

export interface MigrateOptions {
  /** Progress after every chunk and at the steps; the service logs it. */
  log?: (message: string, progress?: MigrationProgress) => void;
  /** History rows of the previous layout per transaction (default 50,000). */
  chunkRows?: number;
  /** How long to wait for another process migrating the same file (default 1 hour). */
  lockWaitMs?: number;
}

const TABLES_REPLACED = new Set(['data_points', 'data_latest']);

/** A history row of the previous layout (one row per item), as its table `data_points` holds it. */
export interface LegacyPointRow {
  vin: string;
  item: string;
  timestamp_ms: number;
  payload: string;
  manufacturer: string;
  mapping_version: string;
  received_at: string;
}

interface LegacyRow extends LegacyPointRow {
  id: number;
}

/**
 * Migrates a SQLite store written by the previous version (one history row per item, one latest
 * row per item) to the current layout (history buckets, one latest row per vehicle). Does
 * nothing for a store that is new or current. Returns whether it migrated.
 *
 * The new store is built next to the old one, in `<file>.migrating`: every other table copied as
 * it is, the history converted in chunks of `chunkRows` rows in their order of arrival (rows of
 * one message are consecutive: they become one bucket), each chunk one transaction that also
 * records how far it got, so a migration that is interrupted (killed, power loss) resumes at
 * its last chunk. The latest values are converted last. Only then does the new file replace
 * the old one (an atomic rename); until then the old file stays as it was. Processes that
 * start together wait for the one migrating (a lock file held with a SQLite exclusive lock,
 * which the system releases when its holder dies). All processes must run the new version:
 * one still running the previous version and writing meanwhile would lose its writes.
 * A bucket store of an earlier version (2 to 4) only has its indexes rebuilt, in place
 * (./upgrade-bucket-indexes.ts).
 */
export async function migrateSqliteStore(file: string, opts: MigrateOptions = {}): Promise<boolean> {
  const log = opts.log ?? (() => {});
  const target = `${file}.migrating`;
  if (!existsSync(file) && !existsSync(target)) return false;
  if (!workLeft(file, target)) return false;
  const lock = new Database(`${file}.migrate-lock`);
  try {
    lock.pragma(`busy_timeout = ${opts.lockWaitMs ?? 3_600_000}`);
    lock.exec('BEGIN EXCLUSIVE');
    // Another process may have finished it while this one waited.
    const work = workLeft(file, target);
    if (!work) return false;
    if (work === 'convert') {
      if (!finished(target)) build(file, target, opts.chunkRows ?? 50_000, log);
      // The old file's WAL was emptied into it before the build; nothing else needs it now.
      for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      renameSync(target, file);
      log('store migration done: the migrated store replaced the previous one');
    }
    // A bucket store of an earlier version; also one an earlier version's migration finished
    // converting but did not rename (only then is the file's state read again).
    if (work === 'indexes' || stateOf(file) === 'older-buckets') upgradeBucketIndexes(file, log);
    return true;
  } finally {
    if (lock.inTransaction) lock.exec('ROLLBACK');
    lock.close();
    rmSync(`${file}.migrate-lock`, { force: true });
  }
}

/**
 * 'convert': the store is of the per-item layout, or a finished conversion waits to replace it;
 * 'indexes': a bucket store whose indexes an earlier version laid out (./upgrade-bucket-indexes.ts).
 */
function workLeft(file: string, target: string): 'convert' | 'indexes' | undefined {
  if (finished(target)) return 'convert';
  if (!existsSync(file)) return undefined;
  const state = stateOf(file);
  return state === 'previous' ? 'convert' : state === 'older-buckets' ? 'indexes' : undefined;
}

function stateOf(file: string): SchemaState {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return schemaState(db);
  } finally {
    db.close();
  }
}

function finished(target: string): boolean {
  if (!existsSync(target)) return false;
  const db = new Database(target, { readonly: true, fileMustExist: true });
  try {
    return isBucketVersion(db.pragma('user_version', { simple: true }) as number);
  } finally {
    db.close();
  }
}

function build(file: string, target: string, chunkRows: number, log: NonNullable<MigrateOptions['log']>): void {
  // Every write the previous version made goes into the main file first, so reading it is
  // reading everything.
  const old = new Database(file, { fileMustExist: true });
  old.pragma('wal_checkpoint(TRUNCATE)');
  old.close();

  const db = new Database(target);
  try {
    // A rollback journal, not WAL: the finished file is complete in itself when renamed.
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = NORMAL');
    db.pragma('secure_delete = ON');
    db.prepare('ATTACH DATABASE ? AS old').run(file);
    const started = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'migration_progress'").get() !== undefined;
    if (!started) copyOtherTables(db);
    const dict = createHistoryDictionary(db);
    const writeBuckets = createBucketWriter(db, dict);
    const total = (db.prepare('SELECT max(rowid) AS n FROM old.data_points').get() as { n: number | null }).n ?? 0;
    const progress = db.prepare<[], number>("SELECT value FROM migration_progress WHERE key = 'last_rowid'").pluck();
    const setProgress = db.prepare<[number]>("UPDATE migration_progress SET value = ? WHERE key = 'last_rowid'");
    const chunk = db.prepare<[number, number], LegacyRow>(
      `SELECT rowid AS id, vin, item, timestamp_ms, payload, manufacturer, mapping_version, received_at
       FROM old.data_points WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    );
    let last = progress.get() ?? 0;
    log(last === 0 ? 'store migration: converting the history to buckets' : 'store migration: resuming', { rows: last, total });
    const convert = db.transaction((rows: LegacyRow[]) => {
      let group: PointToWrite[] = [];
      let key = '';
      for (const r of rows) {
        const k = `${r.vin}\u0000${r.manufacturer}\u0000${r.mapping_version}\u0000${r.received_at}`;
        if (k !== key && group.length > 0) {
          writeBuckets(group);
          group = [];
        }
        key = k;
        group.push({ point: toPoint(r), packed: packPayload(r.payload, r.timestamp_ms), itemId: dict.itemId(r.item) });
      }
      if (group.length > 0) writeBuckets(group);
      setProgress.run(rows[rows.length - 1]!.id);
    });
    for (;;) {
      const rows = chunk.all(last, chunkRows);
      if (rows.length === 0) break;
      convert(rows);
      last = rows[rows.length - 1]!.id;
      log('store migration: history', { rows: last, total });
    }
    convertLatest(db, dict);
    log('store migration: latest values converted', { rows: last, total });
    db.exec('DETACH DATABASE old');
    db.transaction(() => {
      db.exec('DROP TABLE migration_progress');
      db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
    })();
  } finally {
    db.close();
  }
}

const toPoint = (r: LegacyRow): DataPoint => ({
  vin: r.vin,
  item: r.item,
  timestampMs: r.timestamp_ms,
  // Not read: the payload's JSON text goes into the bucket as stored.
  payload: {},
  manufacturer: r.manufacturer,
  mappingVersion: r.mapping_version,
  receivedAt: r.received_at,
});

/** Every table but the two the new layout replaces, with its rows and indexes, in one transaction. */
function copyOtherTables(db: Database.Database): void {
  const objects = db
    .prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
      "SELECT type, name, tbl_name, sql FROM old.sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index'",
    )
    .all();
  db.transaction(() => {
    for (const o of objects) {
      if (TABLES_REPLACED.has(o.tbl_name) || o.sql === null) continue;
      db.exec(o.sql);
      if (o.type === 'table') db.exec(`INSERT INTO main."${o.name}" SELECT * FROM old."${o.name}"`);
    }
    db.exec(DATA_POINTS_SCHEMA);
    db.exec("CREATE TABLE migration_progress (key TEXT PRIMARY KEY, value INTEGER NOT NULL); INSERT INTO migration_progress VALUES ('last_rowid', 0)");
  })();
}

/** The previous latest table (one row per item) becomes one row per vehicle, in one transaction. */
function convertLatest(db: Database.Database, dict: ReturnType<typeof createHistoryDictionary>): void {
  const vins = db.prepare<[], string>('SELECT DISTINCT vin FROM old.data_latest ORDER BY vin').pluck().all();
  const ofVin = db.prepare<[string], LegacyRow>(
    'SELECT 0 AS id, vin, item, timestamp_ms, payload, manufacturer, mapping_version, received_at FROM old.data_latest WHERE vin = ?',
  );
  const upsert = db.prepare<[string, string, string, Buffer]>(
    'INSERT OR REPLACE INTO latest_values (vin, manufacturer, received_at, body) VALUES (?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const vin of vins) {
      const entries = new Map<number, LatestEntry>();
      for (const r of ofVin.all(vin)) entries.set(dict.itemId(r.item), latestEntry(toPoint(r), packPayload(r.payload, r.timestamp_ms)));
      upsert.run(vin, ...latestSummary(entries), encodeLatestRow(entries));
    }
  })();
}
