import type { Db } from 'mongodb';
import type { Subscription, SubscriptionRepo } from '../contract.ts';
import { duplicateKeyError, isDuplicateKey } from './errors.ts';

const toSubscription = (d: Subscription): Subscription => ({
  subscriptionId: d.subscriptionId,
  consumerId: d.consumerId,
  dataItems: [...d.dataItems],
  allowedRedirectUrls: [...d.allowedRedirectUrls],
  legalBasis: d.legalBasis,
  createdAt: d.createdAt,
});

/** MongoDB engine of the SubscriptionRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoSubscriptionRepo(db: Db): Promise<SubscriptionRepo> {
  const subscriptions = db.collection<Subscription>('subscriptions');
  const noId = { projection: { _id: 0 } } as const;
  const order = { createdAt: 1, subscriptionId: 1 } as const;

  return {
    async create(subscription) {
      try {
        await subscriptions.insertOne(toSubscription(subscription));
      } catch (err) {
        if (isDuplicateKey(err)) throw duplicateKeyError(err, { subscriptionId: 'subscriptions.subscriptionId' });
        throw err;
      }
    },
    async get(subscriptionId) {
      const doc = await subscriptions.findOne({ subscriptionId }, noId);
      return doc ? toSubscription(doc) : null;
    },
    async list() {
      return (await subscriptions.find({}, noId).sort(order).toArray()).map(toSubscription);
    },
    async listByConsumer(consumerId) {
      return (await subscriptions.find({ consumerId }, noId).sort(order).toArray()).map(toSubscription);
    },
    async listContainingItem(item) {
      // Equality on an array field matches an element exactly (never a substring).
      return (await subscriptions.find({ dataItems: item }, noId).sort(order).toArray()).map(toSubscription);
    },
  };
}
