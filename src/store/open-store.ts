import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Store } from './contract.ts';
import { migrateSqliteStore } from './sqlite/migrate-store.ts';
import { openSqliteStore } from './sqlite/open.ts';

/**
 * MongoDB when MONGO_URL is set, else the embedded SQLite file in DATA_DIR. The MongoDB engine
 * (and with it the driver) is loaded only when it is used, so a SQLite installation never pays
 * for it at start. A SQLite file written by the previous version is migrated first, its
 * progress logged (src/store/sqlite/migrate-store.ts).
 */
export async function openStore(
  config: Pick<Config, 'MONGO_URL' | 'MONGO_DB' | 'DATA_DIR'> & Partial<Pick<Config, 'SQLITE_BUSY_TIMEOUT_MS' | 'SQLITE_ERASURE_VACUUM_MAX_MB' | 'SQLITE_MMAP_MB'>>,
  logger?: Pick<Logger, 'info'>,
): Promise<Store> {
  if (config.MONGO_URL) {
    const { openMongoStore } = await import('./mongo/open.ts');
    return openMongoStore(config.MONGO_URL, config.MONGO_DB);
  }
  const file = join(config.DATA_DIR, 'store.sqlite');
  await migrateSqliteStore(file, { log: (message, progress) => logger?.info(progress ?? {}, message) });
  return openSqliteStore(file, {
    ...(config.SQLITE_BUSY_TIMEOUT_MS === undefined ? {} : { busyTimeoutMs: config.SQLITE_BUSY_TIMEOUT_MS }),
    ...(config.SQLITE_ERASURE_VACUUM_MAX_MB === undefined ? {} : { erasureVacuumMaxBytes: config.SQLITE_ERASURE_VACUUM_MAX_MB * 1024 * 1024 }),
    ...(config.SQLITE_MMAP_MB ? { mmapBytes: config.SQLITE_MMAP_MB * 1024 * 1024 } : {}),
  });
}
