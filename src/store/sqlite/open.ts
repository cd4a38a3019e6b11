import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from '../contract.ts';
import { StoreUnavailableError } from '../contract/errors.ts';
import { createSqliteAuditRepo } from './audit.ts';
import { createSqliteReportsRepo } from './reports.ts';
import { createSqliteConsentRepo } from './consents.ts';
import { createSqliteConsumerRepo } from './consumers.ts';
import { createSqliteDataPointRepo } from './data-points.ts';
import { createSqliteDeliveryRepo } from './deliveries.ts';
import { guardRepos } from '../guard-store.ts';
import { toSqliteStoreError } from './guard.ts';
import { createSqliteQuarantineRepo } from './quarantine.ts';
import { createSqliteSubscriptionRepo } from './subscriptions.ts';
import { createSqliteVehicleRepo } from './vehicles.ts';
import { createSqliteWebhookRepo } from './webhooks.ts';
import { purgeErased } from './purge-erased.ts';
import { checkSchemaVersion } from './schema-version.ts';

/**
 * Switches the file to WAL. While another process is switching a new file, SQLite answers
 * SQLITE_BUSY at once, without its busy handler: processes starting together on a new file
 * retry until the busy timeout instead of failing.
 */
function useWal(db: Database.Database, timeoutMs: number): void {
  const until = performance.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= until) throw err;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/** Default of SQLITE_ERASURE_VACUUM_MAX_MB (src/config.ts), for callers that open the file without the config. */
const DEFAULT_ERASURE_VACUUM_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Opens (and creates) the embedded store. WAL lets several processes on one machine share the
 * file: readers never block the writer, and busy_timeout makes concurrent writers wait instead
 * of failing.
 */
export function openSqliteStore(file: string, opts: { busyTimeoutMs?: number; erasureVacuumMaxBytes?: number; mmapBytes?: number } = {}): Store {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  useWal(db, busyTimeoutMs);
  db.pragma('synchronous = NORMAL');
  // Deleted content is overwritten with zeros (GDPR erasure must not leave VINs in free pages);
  // the unused space inside pages is cleared by purgeErased's VACUUM.
  db.pragma('secure_delete = ON');
  // SQLITE_MMAP_MB: reads through a memory mapping instead of read calls (history pages).
  if (opts.mmapBytes) db.pragma(`mmap_size = ${Math.trunc(opts.mmapBytes)}`);
  try {
    // A store of the previous layout is refused until migrated (./migrate-store.ts); a new one is versioned.
    checkSchemaVersion(db, file);
    const ping = db.prepare('SELECT 1');
    // Every repository's transient failures (busy, I/O) become StoreUnavailableError.
    const repos = guardRepos(
      {
        consumers: createSqliteConsumerRepo(db),
        subscriptions: createSqliteSubscriptionRepo(db),
        vehicles: createSqliteVehicleRepo(db),
        consents: createSqliteConsentRepo(db),
        dataPoints: createSqliteDataPointRepo(db, busyTimeoutMs),
        quarantine: createSqliteQuarantineRepo(db),
        webhooks: createSqliteWebhookRepo(db),
        deliveries: createSqliteDeliveryRepo(db),
        audit: createSqliteAuditRepo(db),
        // After the repositories whose tables it reads.
        reports: createSqliteReportsRepo(db),
      },
      toSqliteStoreError,
    );
    return {
      engine: 'sqlite',
      ...repos,
      async purgeErased() {
        return purgeErased(db, opts.erasureVacuumMaxBytes ?? DEFAULT_ERASURE_VACUUM_MAX_BYTES);
      },
      async ping() {
        if (!db.open) throw new StoreUnavailableError('the SQLite store is closed');
        ping.get();
      },
      async close() {
        if (db.open) db.close();
      },
    };
  } catch (err) {
    // A repository that cannot create its schema must not leave the file open behind it.
    db.close();
    throw toSqliteStoreError(err);
  }
}
