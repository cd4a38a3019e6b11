import { join } from 'node:path';
import type { Config } from '../config.ts';
import { openStore } from './open-store.ts';
import { migrateSqliteStore } from './sqlite/migrate-store.ts';

/** What `store migrate` did, printed by the CLI as JSON. */
export type MigrationReport =
  | { engine: 'sqlite'; file: string }
  | { engine: 'mongo'; fromVersion: number | null; toVersion: number; indexesBuilt: number; pointsCopied: number; latestValuesCopied: number; sharded: string[] };

export interface MigrateOptions {
  /** MongoDB only: shard the collections first (MONGO_URL names a mongos). */
  shard?: boolean;
  /** Progress lines for the operator. */
  note(text: string): void;
}

type MigrateConfig = Pick<Config, 'MONGO_URL' | 'MONGO_DB' | 'DATA_DIR'> & Partial<Pick<Config, 'SQLITE_BUSY_TIMEOUT_MS' | 'SQLITE_ERASURE_VACUUM_MAX_MB'>>;

/**
 * `npm run cli -- store migrate`: brings the configured store to this release's schema.
 * - MongoDB (MONGO_URL): an explicit step, never done by a process at start. Builds every index
 *   of src/store/mongo/layout.ts (commitQuorum 'majority'), moves the previous schema's data,
 *   sets the schema version; with `--shard` (through a mongos) shards the collections first.
 * - SQLite (DATA_DIR): the same migration the service runs when it opens the file (a file of the
 *   previous layout is rebuilt beside it, resumably, and renamed over it at the end), with its
 *   progress printed; then the store is opened and closed once to check it.
 */
export async function migrateStore(config: MigrateConfig, opts: MigrateOptions): Promise<MigrationReport> {
  if (config.MONGO_URL) {
    const { migrateMongoStore } = await import('./mongo/migrate.ts');
    return migrateMongoStore(config.MONGO_URL, config.MONGO_DB, opts);
  }
  if (opts.shard) throw new RangeError('--shard is for MongoDB (MONGO_URL naming a mongos); a SQLite store is one file');
  await migrateSqliteStore(join(config.DATA_DIR, 'store.sqlite'), {
    log: (message, progress) => opts.note(progress ? `${message} (${progress.rows} of ${progress.total} history rows)` : message),
  });
  const store = await openStore(config);
  await store.close();
  opts.note(`SQLite store in ${config.DATA_DIR}: at this release's schema`);
  return { engine: 'sqlite', file: 'store.sqlite' };
}
