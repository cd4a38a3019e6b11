import { MongoClient } from 'mongodb';
import type { Store } from '../contract.ts';
import { createMongoAuditRepo } from './audit.ts';
import { createMongoConsentRepo } from './consents.ts';
import { createMongoConsumerRepo } from './consumers.ts';
import { createMongoDataPointRepo } from './data-points.ts';
import { createMongoDeliveryRepo } from './deliveries.ts';
import { createMongoQuarantineRepo } from './quarantine.ts';
import { createMongoSubscriptionRepo } from './subscriptions.ts';
import { createMongoVehicleRepo } from './vehicles.ts';
import { createMongoWebhookRepo } from './webhooks.ts';

/**
 * Connects to MongoDB and makes sure every index exists before the store is used.
 * Writes are acknowledged by a majority with journaling (a job completes only after a durable
 * write; reliability checklist H2); retryable writes need a replica set, as in production.
 */
export async function openMongoStore(url: string, dbName: string): Promise<Store> {
  const client = new MongoClient(url, {
    writeConcern: { w: 'majority', journal: true },
    readConcern: { level: 'majority' },
    retryWrites: true,
    serverSelectionTimeoutMS: 5000,
  });
  await client.connect();
  const db = client.db(dbName);
  return {
    engine: 'mongo',
    consumers: await createMongoConsumerRepo(db),
    subscriptions: await createMongoSubscriptionRepo(db),
    vehicles: await createMongoVehicleRepo(db),
    consents: await createMongoConsentRepo(db),
    dataPoints: await createMongoDataPointRepo(db),
    quarantine: await createMongoQuarantineRepo(db),
    webhooks: await createMongoWebhookRepo(db),
    deliveries: await createMongoDeliveryRepo(db),
    audit: await createMongoAuditRepo(db),
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
}
