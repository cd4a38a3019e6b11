import Database from 'better-sqlite3';
import { BUCKET_INDEXES } from './bucket-indexes.ts';
import { STORE_SCHEMA_VERSION } from './schema-version.ts';

/** Versions 2 to 4: the index over every bucket, and (4) the small one over unclustered buckets. */
const REPLACED_INDEXES = ['history_buckets_vin_shape_ts', 'history_buckets_unclustered'];

/**
 * Brings a bucket store of versions 2 to 4 to version 5 in place: the `clustered` column where
 * it is missing (a file written before housekeeping laid buckets out: they count as laid out,
 * and stay where they are), then the two partial indexes (./bucket-indexes.ts) instead of the
 * index over every bucket. One transaction: interrupted, it leaves the file as it was, and the
 * next start does it again. Building the laid-out index reads every bucket once (a 20 M item
 * store, 740,000 buckets: about 4 s on a 2-core machine). Under migrateSqliteStore's lock,
 * before any process opens the store.
 */
export function upgradeBucketIndexes(file: string, log: (message: string) => void): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 3600000');
    // The dropped index's pages are zeroed, as every deletion in this store (GDPR erasure).
    db.pragma('secure_delete = ON');
    const from = db.pragma('user_version', { simple: true }) as number;
    const buckets = db.prepare<[], number>('SELECT count(*) FROM history_buckets').pluck().get() ?? 0;
    log(`store migration: rebuilding the history indexes of ${buckets} buckets (schema ${from} to ${STORE_SCHEMA_VERSION})`);
    const started = performance.now();
    db.transaction(() => {
      const columns = db.pragma('table_info(history_buckets)') as { name: string }[];
      if (!columns.some((c) => c.name === 'clustered')) db.exec('ALTER TABLE history_buckets ADD COLUMN clustered INTEGER NOT NULL DEFAULT 1');
      for (const name of REPLACED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
      db.exec(BUCKET_INDEXES);
      db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
    }).immediate();
    log(`store migration done: history indexes rebuilt in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  } finally {
    db.close();
  }
}
