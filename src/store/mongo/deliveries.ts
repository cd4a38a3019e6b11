import type { Db } from 'mongodb';
import type { DeliveryRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the DeliveryRepo. Creates its indexes before it is used. */
export async function createMongoDeliveryRepo(_db: Db): Promise<DeliveryRepo> {
  return notImplemented<DeliveryRepo>('mongo.deliveries');
}
