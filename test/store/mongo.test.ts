import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe } from 'vitest';
import { openMongoStore } from '../../src/store/mongo/open.ts';
import { runConformance } from './run-conformance.ts';

const url = process.env.MONGO_URL;

// Runs only where a MongoDB server is reachable through MONGO_URL (a single-node replica set,
// as in production). None can be installed on the machines this project is built on, so CI
// covers the same contract on SQLite; see the README's "Storage" section.
describe.skipIf(!url)('store conformance: MongoDB (needs MONGO_URL)', () => {
  runConformance(async () => {
    const dbName = `cvd_test_${randomUUID().slice(0, 8)}`;
    const store = await openMongoStore(url!, dbName);
    return {
      store,
      async cleanup() {
        await store.close();
        const client = await MongoClient.connect(url!);
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
});
