import type { Db } from 'mongodb';
import type { ConsumerRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the ConsumerRepo. Creates its indexes before it is used. */
export async function createMongoConsumerRepo(_db: Db): Promise<ConsumerRepo> {
  return notImplemented<ConsumerRepo>('mongo.consumers');
}
