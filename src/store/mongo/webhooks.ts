import type { Db, Filter } from 'mongodb';
import { DEFAULT_ENDPOINT, type WebhookRecord, type WebhookRepo } from '../contract.ts';

/**
 * One document per (subscription, endpoint). The default endpoint's `_id` is the subscriptionId,
 * as when a subscription had one webhook, so documents from then need no migration; another
 * endpoint's is `<subscriptionId>/<endpointId>` and it carries both as fields too.
 */
export type WebhookDoc = Omit<WebhookRecord, 'subscriptionId' | 'notices' | 'endpointId'> & {
  _id: string;
  subscriptionId?: string;
  endpointId?: string;
  notices?: string[];
};

const idOf = (subscriptionId: string, endpointId: string): string => (endpointId === DEFAULT_ENDPOINT ? subscriptionId : `${subscriptionId}/${endpointId}`);

/** A document stored before notices became opt-in has no `notices`: opted out. */
export const toWebhookRecord = ({ _id, notices, subscriptionId, endpointId, ...rest }: WebhookDoc): WebhookRecord => ({
  subscriptionId: subscriptionId ?? _id,
  ...(endpointId && endpointId !== DEFAULT_ENDPOINT ? { endpointId } : {}),
  ...rest,
  notices: notices ?? [],
});

/** MongoDB engine of the WebhookRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoWebhookRepo(db: Db): Promise<WebhookRepo> {
  const col = db.collection<WebhookDoc>('webhooks');
  // listWatching's `items.0` test, which a multikey index on `items` cannot serve, scans the
  // collection, once per PUSH_WATCH_CACHE_MS and process.
  const one = (subscriptionId: string, endpointId: string): Filter<WebhookDoc> => ({ _id: idOf(subscriptionId, endpointId) });

  return {
    async get(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      const doc = await col.findOne(one(subscriptionId, endpointId));
      return doc ? toWebhookRecord(doc) : null;
    },
    async list(subscriptionId) {
      const docs = await col.find({ $or: [{ _id: subscriptionId }, { subscriptionId }] }).toArray();
      const records = docs.map(toWebhookRecord);
      const key = (r: WebhookRecord) => r.endpointId ?? '';
      return records.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    },
    async put(record) {
      const { subscriptionId, endpointId = DEFAULT_ENDPOINT, ...rest } = record;
      const doc = endpointId === DEFAULT_ENDPOINT ? rest : { ...rest, subscriptionId, endpointId };
      await col.replaceOne(one(subscriptionId, endpointId), doc, { upsert: true });
    },
    async delete(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      const res = await col.deleteOne(one(subscriptionId, endpointId));
      return res.deletedCount === 1;
    },
    async listWatching() {
      const docs = await col
        .find({ 'items.0': { $exists: true } }, { projection: { items: 1, minIntervalSeconds: 1, subscriptionId: 1, endpointId: 1 } })
        .sort({ _id: 1 })
        .toArray();
      return docs.map((d) => {
        const { subscriptionId, endpointId } = toWebhookRecord(d as WebhookDoc);
        return { subscriptionId, ...(endpointId ? { endpointId } : {}), items: d.items, minIntervalSeconds: d.minIntervalSeconds };
      });
    },
    async setSecrets(subscriptionId, secrets, at, endpointId = DEFAULT_ENDPOINT) {
      const res = await col.updateOne(one(subscriptionId, endpointId), { $set: { secrets, updatedAt: at } });
      return res.matchedCount === 1;
    },
    async recordFailure(subscriptionId, at, endpointId = DEFAULT_ENDPOINT) {
      // An update pipeline keeps the start of a run of failures in one atomic write ($ifNull = COALESCE).
      // $literal: inside a pipeline a string starting with `$` would be read as a field path.
      const doc = await col.findOneAndUpdate(
        one(subscriptionId, endpointId),
        [{ $set: { failingSince: { $ifNull: ['$failingSince', { $literal: at }] } } }],
        { returnDocument: 'after', projection: { failingSince: 1 } },
      );
      return doc ? doc.failingSince : null;
    },
    async recordSuccess(subscriptionId, endpointId = DEFAULT_ENDPOINT) {
      await col.updateOne({ ...one(subscriptionId, endpointId), failingSince: { $ne: null } }, { $set: { failingSince: null } });
    },
    async disable(subscriptionId, reason, at, endpointId = DEFAULT_ENDPOINT) {
      const res = await col.updateOne(
        { ...one(subscriptionId, endpointId), status: 'ENABLED' },
        { $set: { status: 'DISABLED', disabledReason: reason, updatedAt: at } },
      );
      return res.modifiedCount === 1;
    },
  };
}
