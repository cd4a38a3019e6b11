import type { Db } from 'mongodb';
import type { SubscriptionRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the SubscriptionRepo. Creates its indexes before it is used. */
export async function createMongoSubscriptionRepo(_db: Db): Promise<SubscriptionRepo> {
  return notImplemented<SubscriptionRepo>('mongo.subscriptions');
}
