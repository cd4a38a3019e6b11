import type Database from 'better-sqlite3';
import type { PurgeReport } from '../contract.ts';
import { toSqliteStoreError } from './guard.ts';

/**
 * After a GDPR erasure: leaves no byte of the deleted rows in the database file or its WAL.
 *
 * `secure_delete` zeroes a deleted cell and a freed page, but not the unused space inside a
 * page: when SQLite splits or merges b-tree pages (during ingestion, retention and the
 * erasure's own deletes) it rebuilds them and leaves the old bytes between the cell pointers
 * and the cells. Copies of the erased VIN's rows stayed there (issue 20 item 1). Only a rebuild
 * of every page that ever held them clears that space, and interleaved ingestion spreads a VIN
 * over the whole history table, so `VACUUM` (a rewrite of the whole file) is the one sure way.
 *
 * Its cost grows with the store (measured: about 8 s for 1 million data points, 214 MB, on the
 * 2-core build machine) and it holds the write lock meanwhile, so it runs only while the file
 * is at most `maxVacuumBytes`; a larger store reports `rewriteSkipped` and needs the offline
 * VACUUM of docs/operations.md. The WAL, which still holds the old page images and receives
 * the rewrite, is then checkpointed and truncated.
 */
export function purgeErased(db: Database.Database, maxVacuumBytes: number): PurgeReport {
  try {
    const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    const rewrite = bytes <= maxVacuumBytes;
    if (rewrite) db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { rewriteSkipped: !rewrite };
  } catch (err) {
    // Another process held the write lock too long: the erasure is reported unavailable and repeated.
    throw toSqliteStoreError(err);
  }
}
