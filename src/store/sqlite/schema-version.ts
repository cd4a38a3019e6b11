import type Database from 'better-sqlite3';

/**
 * The SQLite store's schema version, kept in the file's `user_version`:
 * - 0: no version (a new file, or one written before versions; the latter holds the per-item
 *   history table `data_points`);
 * - 2: history in buckets and latest values per vehicle (./data-points.ts), bucket bodies as bytes;
 * - 3: the same, bucket bodies written as text (./history-bucket.ts);
 * - 4: the same, with each vehicle's bucket shapes kept in `history_vehicle_shapes`
 *   (./vehicle-shapes.ts) and new buckets laid out by housekeeping (./history-cluster.ts);
 * - 5: the same, the buckets indexed in two partial indexes, laid out and recent
 *   (./bucket-indexes.ts), instead of one over every bucket.
 * (1 is skipped so that "0 with data_points" and "2" can never be confused.)
 * This build reads both kinds of bucket body, and a vehicle without kept shapes is looked up in
 * the index; but it finds buckets only through the version-5 indexes, so a file of versions 2 to
 * 4 ('older-buckets') has its indexes rebuilt first (./upgrade-bucket-indexes.ts, which the
 * service runs at start). An older build then refuses the file ('newer') instead of misreading
 * it.
 */
export const STORE_SCHEMA_VERSION = 5;

/** Versions of the bucket layout (the per-item layout had none): a migration's finished file holds one. */
export const isBucketVersion = (version: number): boolean => version >= 2 && version <= STORE_SCHEMA_VERSION;

export type SchemaState = 'empty' | 'previous' | 'older-buckets' | 'current' | 'newer';

export function schemaState(db: Database.Database): SchemaState {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > STORE_SCHEMA_VERSION) return 'newer';
  if (version === STORE_SCHEMA_VERSION) return 'current';
  if (isBucketVersion(version)) return 'older-buckets';
  const legacy = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'data_points'").get();
  return legacy ? 'previous' : 'empty';
}

/** Thrown by a process that meets a store it cannot use as it is. */
export class StoreSchemaError extends Error {
  override name = 'StoreSchemaError';
}

/**
 * At open: a store of the previous layout, or of older bucket indexes, must have been migrated
 * (migrateSqliteStore, which the service runs at start); a new one gets the current version.
 * Under the write lock, so processes opening a new file at once agree.
 */
export function checkSchemaVersion(db: Database.Database, file: string): void {
  db.transaction(() => {
    const state = schemaState(db);
    if (state === 'previous') {
      throw new StoreSchemaError(
        `${file} holds the data-point layout of a previous version: start the service once (it migrates the store at start) or run "npm run cli -- store migrate"`,
      );
    }
    if (state === 'older-buckets') {
      throw new StoreSchemaError(
        `${file} holds history buckets indexed as a previous version did (schema ${String(db.pragma('user_version', { simple: true }))}): start the service once (it rebuilds the indexes at start) or run "npm run cli -- store migrate"`,
      );
    }
    if (state === 'newer') throw new StoreSchemaError(`${file} was written by a newer version of the service (schema ${String(db.pragma('user_version', { simple: true }))})`);
    if (state === 'empty') db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
  }).immediate();
}
