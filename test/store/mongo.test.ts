import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe } from 'vitest';
import type { Store } from '../../src/store/contract.ts';
import { migrateMongoStore } from '../../src/store/mongo/migrate.ts';
import { openMongoStore } from '../../src/store/mongo/open.ts';
import type { UniqueIndex } from './conformance/types.ts';
import { runConformance } from './run-conformance.ts';

const url = process.env.MONGO_URL;

// Runs only where a MongoDB server is reachable through MONGO_URL (a single-node replica set,
// as in production). None can be installed on the machines this project is built on, so CI
// covers the same contract on SQLite; see the README's "Storage" section.
describe.skipIf(!url)('store conformance: MongoDB (needs MONGO_URL)', () => {
  runConformance(async () => {
    const dbName = `cvd_test_${randomUUID().slice(0, 8)}`;
    // As an operator does before the first start: indexes and schema version (no process builds them).
    await migrateMongoStore(url!, dbName, { note: () => undefined });
    const store = await openMongoStore(url!, dbName);
    const peers: Store[] = [];
    return {
      store,
      async openPeer() {
        const peer = await openMongoStore(url!, dbName);
        peers.push(peer);
        return peer;
      },
      async uniqueIndexes() {
        const client = await MongoClient.connect(url!);
        try {
          const db = client.db(dbName);
          const found: UniqueIndex[] = [];
          for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
            for (const index of await db.collection(name).listIndexes().toArray()) {
              // _id is unique without saying so.
              if (index.unique === true || index.name === '_id_') found.push({ table: name, fields: Object.keys(index.key) });
            }
          }
          return found;
        } finally {
          await client.close();
        }
      },
      async cleanup() {
        for (const peer of peers) await peer.close();
        await store.close();
        const client = await MongoClient.connect(url!);
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
});
