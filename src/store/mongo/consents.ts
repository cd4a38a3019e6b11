import type { Db, Filter } from 'mongodb';
import type { ConsentRecord, ConsentRepo } from '../contract.ts';
import { ACTIVE_CONSENT_STATES } from '../../domain/consent-states.ts';
import { deleteInChunks } from './delete-in-chunks.ts';
import { duplicateKeyError, isDuplicateKey } from './errors.ts';

type ConsentDoc = ConsentRecord;

/** Logical names of the unique indexes by their key fields, the same both engines report in a DuplicateKeyError. */
const INDEX_NAMES: Record<string, string> = {
  consentId: 'consents.consentId',
  codeHash: 'consents.codeHash',
  oauthStateHash: 'consents.oauthStateHash',
};

/** Turns a unique-index refusal (E11000) into the contract's DuplicateKeyError. */
async function withDuplicateKey<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw isDuplicateKey(err) ? duplicateKeyError(err, INDEX_NAMES) : err;
  }
}

const NO_ID = { projection: { _id: 0 } } as const;

/**
 * A lookup by code or OAuth state hash. Their unique indexes are partial (strings only), and the
 * planner uses a partial index only for a query that contains its filter expression (MongoDB
 * manual, partial indexes, "Query Coverage"); an equality alone does not imply `$type`, so
 * without it every OAuth callback and code confirmation would scan the whole collection.
 */
const STRINGS_ONLY = { $type: 'string' } as const;
const hashLookup = (hash: string) => ({ $eq: hash, ...STRINGS_ONLY });

/** MongoDB engine of the ConsentRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoConsentRepo(db: Db): Promise<ConsentRepo> {
  const col = db.collection<ConsentDoc>('consents');

  return {
    async create(record) {
      // insertOne adds _id to the object it is given: hand it a copy.
      await withDuplicateKey(() => col.insertOne({ ...record }));
    },
    async get(consentId) {
      return col.findOne({ consentId }, NO_ID);
    },
    async findByOAuthStateHash(hash) {
      return col.findOne({ oauthStateHash: hashLookup(hash) }, NO_ID);
    },
    async findByCodeHash(hash) {
      return col.findOne({ codeHash: hashLookup(hash) }, NO_ID);
    },
    async listBySubscription(subscriptionId, filter) {
      const query: Filter<ConsentDoc> = { subscriptionId };
      if (filter?.vin !== undefined) query.vin = filter.vin;
      return col.find(query, NO_ID).sort({ createdAt: -1, consentId: 1 }).toArray();
    },
    async listByVin(vin) {
      // Served by the vin_1 index; a VIN has few processes, so the sort is in memory.
      return col.find({ vin }, NO_ID).sort({ createdAt: -1, consentId: 1 }).toArray();
    },
    async transition(selector, change) {
      if (change.from.length === 0) return null;
      const query: Filter<ConsentDoc> =
        'codeHash' in selector
          ? { codeHash: hashLookup(selector.codeHash), consumerId: selector.consumerId }
          : { consentId: selector.consentId };
      query.state = { $in: [...change.from] };
      if (change.notBefore !== undefined) {
        query.stateChangedAt = { $gte: change.notBefore };
        query.$or = [{ consentGivenAt: null }, { consentGivenAt: { $gte: change.notBefore } }];
      }
      const entry = { state: change.to, at: change.at, ...(change.errorCode !== undefined ? { errorCode: change.errorCode } : {}) };
      const set: Partial<ConsentDoc> = { ...(change.set ?? {}), state: change.to, stateChangedAt: change.at };
      if (change.errorCode !== undefined) set.errorCode = change.errorCode;
      // One findOneAndUpdate: the filter is the guard, so of two racing requests one wins.
      return withDuplicateKey(() =>
        col.findOneAndUpdate(query, { $set: set, $push: { history: entry } }, { returnDocument: 'after', ...NO_ID }),
      );
    },
    async keepNewest(subscriptionId, vin, change) {
      if (change.from.length === 0) return 0;
      const inState = { subscriptionId, vin, state: { $in: [...change.from] } };
      // The order of findActive. Not atomic with the update below, so the update moves only
      // processes strictly older than this newest one: a newer one activated meanwhile is never
      // moved, and its own call moves this one.
      const newest = await col.findOne(inState, { projection: { _id: 0, consentId: 1, activatedAt: 1 }, sort: { activatedAt: -1, consentId: 1 } });
      if (!newest) return 0;
      const older: Filter<ConsentDoc>[] = [{ activatedAt: newest.activatedAt, consentId: { $gt: newest.consentId } }];
      if (newest.activatedAt !== null) older.push({ activatedAt: { $lt: newest.activatedAt } }, { activatedAt: null });
      const res = await col.updateMany(
        { ...inState, $or: older },
        { $set: { state: change.to, stateChangedAt: change.at }, $push: { history: { state: change.to, at: change.at } } },
      );
      return res.modifiedCount;
    },
    async findActive(subscriptionId, vin) {
      return col.findOne(
        { subscriptionId, vin, state: { $in: [...ACTIVE_CONSENT_STATES] } },
        { ...NO_ID, sort: { activatedAt: -1, consentId: 1 } },
      );
    },
    async activeVins(subscriptionId, vins) {
      if (vins.length === 0) return new Set();
      const found = await col.distinct('vin', {
        subscriptionId,
        vin: { $in: [...new Set(vins)] },
        state: { $in: [...ACTIVE_CONSENT_STATES] },
      });
      return new Set(found.filter((v): v is string => typeof v === 'string'));
    },
    async listChangedBefore(states, before, limit) {
      if (states.length === 0 || limit <= 0) return [];
      return col
        .find({ state: { $in: [...states] }, stateChangedAt: { $lt: before } }, NO_ID)
        .sort({ stateChangedAt: 1, consentId: 1 })
        .limit(limit)
        .toArray();
    },
    async deleteChangedBefore(states, before, opts = {}) {
      if (states.length === 0) return 0;
      // `activatedAt: null` matches a null and a missing field alike.
      const filter = { state: { $in: [...states] }, stateChangedAt: { $lt: before }, ...(opts.neverActive ? { activatedAt: null } : {}) };
      // Chunked like every retention delete: the first sweep after a backlog may match many.
      return deleteInChunks(col, filter);
    },
    async deleteByVin(vin) {
      const res = await col.deleteMany({ vin });
      return res.deletedCount;
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      const res = await col.deleteMany({ subscriptionId, vin });
      return res.deletedCount;
    },
  };
}
