import type { Db } from 'mongodb';
import type { WebhookRecord, WebhookRepo } from '../contract.ts';

/** One document per subscription: `_id` is the subscriptionId, so uniqueness is the primary key. */
export type WebhookDoc = Omit<WebhookRecord, 'subscriptionId' | 'notices'> & { _id: string; notices?: string[] };

/** A document stored before the notices opt-in (issue 19) has no `notices`: opted out. */
export const toWebhookRecord = ({ _id, notices, ...rest }: WebhookDoc): WebhookRecord => ({ subscriptionId: _id, ...rest, notices: notices ?? [] });

/** MongoDB engine of the WebhookRepo. Creates its indexes before it is used. */
export async function createMongoWebhookRepo(db: Db): Promise<WebhookRepo> {
  const col = db.collection<WebhookDoc>('webhooks');
  // No secondary index: the collection holds one document per subscription, and the only query
  // beyond _id (listWatching's `items.0` test, which a multikey index on `items` cannot serve)
  // scans it, once per PUSH_WATCH_CACHE_MS and process.

  return {
    async get(subscriptionId) {
      const doc = await col.findOne({ _id: subscriptionId });
      return doc ? toWebhookRecord(doc) : null;
    },
    async put(record) {
      const { subscriptionId, ...rest } = record;
      await col.replaceOne({ _id: subscriptionId }, rest, { upsert: true });
    },
    async delete(subscriptionId) {
      const res = await col.deleteOne({ _id: subscriptionId });
      return res.deletedCount === 1;
    },
    async listWatching() {
      const docs = await col
        .find({ 'items.0': { $exists: true } }, { projection: { items: 1, minIntervalSeconds: 1 } })
        .sort({ _id: 1 })
        .toArray();
      return docs.map((d) => ({ subscriptionId: d._id, items: d.items, minIntervalSeconds: d.minIntervalSeconds }));
    },
    async setSecrets(subscriptionId, secrets, at) {
      const res = await col.updateOne({ _id: subscriptionId }, { $set: { secrets, updatedAt: at } });
      return res.matchedCount === 1;
    },
    async recordFailure(subscriptionId, at) {
      // An update pipeline keeps the start of a run of failures in one atomic write ($ifNull = COALESCE).
      // $literal: inside a pipeline a string starting with `$` would be read as a field path.
      const doc = await col.findOneAndUpdate(
        { _id: subscriptionId },
        [{ $set: { failingSince: { $ifNull: ['$failingSince', { $literal: at }] } } }],
        { returnDocument: 'after', projection: { failingSince: 1 } },
      );
      return doc ? doc.failingSince : null;
    },
    async recordSuccess(subscriptionId) {
      await col.updateOne({ _id: subscriptionId, failingSince: { $ne: null } }, { $set: { failingSince: null } });
    },
    async disable(subscriptionId, reason, at) {
      const res = await col.updateOne(
        { _id: subscriptionId, status: 'ENABLED' },
        { $set: { status: 'DISABLED', disabledReason: reason, updatedAt: at } },
      );
      return res.modifiedCount === 1;
    },
  };
}
