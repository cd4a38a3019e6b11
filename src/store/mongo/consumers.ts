import type { Db } from 'mongodb';
import type { ApiKeyRecord, Consumer, ConsumerRepo } from '../contract.ts';
import { duplicateKeyError, isDuplicateKey } from './errors.ts';

/** Contract names of the unique indexes, by the fields of the E11000's keyPattern. */
const NAMES: Record<string, string> = {
  consumerId: 'consumers.consumerId',
  keyHash: 'api_keys.keyHash',
  keyId: 'api_keys.keyId',
};

const toConsumer = (d: Consumer): Consumer => ({ consumerId: d.consumerId, name: d.name, createdAt: d.createdAt });

const toKey = (d: ApiKeyRecord): ApiKeyRecord => ({
  keyId: d.keyId,
  consumerId: d.consumerId,
  keyHash: d.keyHash,
  displayPrefix: d.displayPrefix,
  createdAt: d.createdAt,
  revokedAt: d.revokedAt ?? null,
});

/** Inserts a copy (the driver adds _id to what it inserts) and reports E11000 as the contract's error. */
async function insertUnique(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (isDuplicateKey(err)) throw duplicateKeyError(err, NAMES);
    throw err;
  }
}

/** MongoDB engine of the ConsumerRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoConsumerRepo(db: Db): Promise<ConsumerRepo> {
  const consumers = db.collection<Consumer>('consumers');
  const keys = db.collection<ApiKeyRecord>('apiKeys');
  const noId = { projection: { _id: 0 } } as const;

  return {
    async create(consumer) {
      await insertUnique(() => consumers.insertOne(toConsumer(consumer)));
    },
    async get(consumerId) {
      const doc = await consumers.findOne({ consumerId }, noId);
      return doc ? toConsumer(doc) : null;
    },
    async list() {
      return (await consumers.find({}, noId).sort({ createdAt: 1, consumerId: 1 }).toArray()).map(toConsumer);
    },
    async count() {
      return consumers.countDocuments({});
    },
    async addApiKey(key) {
      await insertUnique(() => keys.insertOne(toKey(key)));
    },
    async findApiKeyByHash(keyHash) {
      const doc = await keys.findOne({ keyHash }, noId);
      return doc ? toKey(doc) : null;
    },
    async listApiKeys(consumerId) {
      return (await keys.find({ consumerId }, noId).sort({ createdAt: 1, keyId: 1 }).toArray()).map(toKey);
    },
    async revokeApiKey(consumerId, keyId, at) {
      // Conditional on revokedAt null so a second revocation reports false and keeps the first time.
      const result = await keys.updateOne({ consumerId, keyId, revokedAt: null }, { $set: { revokedAt: at } });
      return result.modifiedCount === 1;
    },
  };
}
