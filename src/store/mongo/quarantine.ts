import type { Db } from 'mongodb';
import type { QuarantineRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the QuarantineRepo. Creates its indexes before it is used. */
export async function createMongoQuarantineRepo(_db: Db): Promise<QuarantineRepo> {
  return notImplemented<QuarantineRepo>('mongo.quarantine');
}
