import type { Db } from 'mongodb';
import type { ConsentRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the ConsentRepo. Creates its indexes before it is used. */
export async function createMongoConsentRepo(_db: Db): Promise<ConsentRepo> {
  return notImplemented<ConsentRepo>('mongo.consents');
}
