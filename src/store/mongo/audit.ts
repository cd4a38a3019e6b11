import type { Db } from 'mongodb';
import type { AuditRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the AuditRepo. Creates its indexes before it is used. */
export async function createMongoAuditRepo(_db: Db): Promise<AuditRepo> {
  return notImplemented<AuditRepo>('mongo.audit');
}
