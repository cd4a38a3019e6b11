import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from '../contract.ts';
import { StoreUnavailableError } from '../contract/errors.ts';
import { createSqliteAuditRepo } from './audit.ts';
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

/**
 * Opens (and creates) the embedded store. WAL lets several processes on one machine share the
 * file: readers never block the writer, and busy_timeout makes concurrent writers wait instead
 * of failing.
 */
export function openSqliteStore(file: string, opts: { busyTimeoutMs?: number } = {}): Store {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  // Deleted content is overwritten with zeros (GDPR erasure must not leave VINs in free pages).
  db.pragma('secure_delete = ON');
  try {
    const ping = db.prepare('SELECT 1');
    // Every repository's transient failures (busy, I/O) become StoreUnavailableError.
    const repos = guardRepos(
      {
        consumers: createSqliteConsumerRepo(db),
        subscriptions: createSqliteSubscriptionRepo(db),
        vehicles: createSqliteVehicleRepo(db),
        consents: createSqliteConsentRepo(db),
        dataPoints: createSqliteDataPointRepo(db),
        quarantine: createSqliteQuarantineRepo(db),
        webhooks: createSqliteWebhookRepo(db),
        deliveries: createSqliteDeliveryRepo(db),
        audit: createSqliteAuditRepo(db),
      },
      toSqliteStoreError,
    );
    return {
      engine: 'sqlite',
      ...repos,
      async purgeErased() {
        db.pragma('wal_checkpoint(TRUNCATE)');
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
