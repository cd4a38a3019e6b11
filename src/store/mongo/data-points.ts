import type { Db } from 'mongodb';
import type { DataPointRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the DataPointRepo. Creates its indexes before it is used. */
export async function createMongoDataPointRepo(_db: Db): Promise<DataPointRepo> {
  return notImplemented<DataPointRepo>('mongo.data-points');
}
