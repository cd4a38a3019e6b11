import { MongoClient, type Db } from 'mongodb';
import type { Store } from '../contract.ts';
import { StoreUnavailableError } from '../contract/errors.ts';
import { createMongoAuditRepo } from './audit.ts';
import { createMongoReportsRepo } from './reports.ts';
import { createMongoConsentRepo } from './consents.ts';
import { createMongoConsumerRepo } from './consumers.ts';
import { createMongoDataPointRepo } from './data-points.ts';
import { createMongoDeliveryRepo } from './deliveries.ts';
import { guardRepos } from '../guard-store.ts';
import { toStoreError } from './errors.ts';
import { createMongoQuarantineRepo } from './quarantine.ts';
import { createMongoSubscriptionRepo } from './subscriptions.ts';
import { createMongoVehicleRepo } from './vehicles.ts';
import { createMongoWebhookRepo } from './webhooks.ts';
import { SOCKET_TIMEOUT_MS } from './time-limits.ts';
import { WRITE_CONCERN } from './layout.ts';
import { checkSchema } from './schema.ts';

/** The client options production relies on (acknowledge only after a durable write); exported for a unit test. */
export const MONGO_CLIENT_OPTIONS = {
  // Every operation's write concern (src/store/mongo/layout.ts): majority, journaled, with
  // wtimeoutMS so a set without a majority answers a transient error instead of holding the write.
  writeConcern: WRITE_CONCERN,
  readConcern: { level: 'majority' },
  retryWrites: true,
  retryReads: true,
  serverSelectionTimeoutMS: 5000,
  // A server that accepted a connection and then stopped answering (a hung primary, a network
  // path that drops packets) would otherwise hold a request or a job for ever: a socket silent
  // this long fails the operation as a network error, which the guard makes StoreUnavailableError
  // (503 + Retry-After, job retried). Longer than any single operation the service sends.
  connectTimeoutMS: 10_000,
  socketTimeoutMS: SOCKET_TIMEOUT_MS,
} as const;

/** Every repository on this database. None builds an index: `store migrate` does (src/store/mongo/layout.ts). */
async function openRepos(db: Db) {
  const [consumers, subscriptions, vehicles, consents, quarantine, webhooks, deliveries, audit, reports] = await Promise.all([
    createMongoConsumerRepo(db),
    createMongoSubscriptionRepo(db),
    createMongoVehicleRepo(db),
    createMongoConsentRepo(db),
    createMongoQuarantineRepo(db),
    createMongoWebhookRepo(db),
    createMongoDeliveryRepo(db),
    createMongoAuditRepo(db),
    createMongoReportsRepo(db),
  ]);
  const dataPoints = createMongoDataPointRepo(db);
  return { consumers, subscriptions, vehicles, consents, dataPoints, quarantine, webhooks, deliveries, audit, reports };
}

/**
 * Connects to MongoDB and checks that the database is at this release's schema version; a store
 * not migrated yet stops the open with StoreNotMigratedError naming `store migrate` (the process
 * stops at start). It builds no index and moves no data: the migration is an operator's command.
 * Writes are acknowledged by a majority with journaling (a job completes only after a durable
 * write: an acknowledgement upstream follows only a durable write); retryable writes need a replica set, as in production.
 * An unreachable server fails the open with StoreUnavailableError and leaves no client behind.
 */
export async function openMongoStore(url: string, dbName: string): Promise<Store> {
  const client = new MongoClient(url, MONGO_CLIENT_OPTIONS);
  try {
    await client.connect();
    const db = client.db(dbName);
    await checkSchema(db, dbName);
    // Every repository's driver outages become StoreUnavailableError.
    const repos = guardRepos(await openRepos(db), toStoreError);
    return {
      engine: 'mongo',
      ...repos,
      async purgeErased() {
        // Deleted documents are gone from the collections; WiredTiger reuses their space without
        // zeroing it, and the journal and oplog age out (docs/security.md "Erasure").
        return { rewriteSkipped: false };
      },
      async ping() {
        try {
          await db.command({ ping: 1 });
        } catch (err) {
          throw new StoreUnavailableError(err);
        }
      },
      async close() {
        await client.close();
      },
    };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw toStoreError(err);
  }
}
