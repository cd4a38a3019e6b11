import type { Db, Filter } from 'mongodb';
import type { AuditEvent, AuditRepo } from '../contract.ts';

/** A stored event: the contract's fields plus `atDate`, the same time as a Date (TTL-ready). */
interface AuditDoc extends AuditEvent {
  atDate: Date;
}

const toEvent = (d: AuditEvent): AuditEvent => ({ type: d.type, at: d.at, subject: d.subject ?? null, details: d.details ?? {} });

/** MongoDB engine of the AuditRepo: an append-only log, listed oldest first. */
export async function createMongoAuditRepo(db: Db): Promise<AuditRepo> {
  const events = db.collection<AuditDoc>('auditEvents');

  return {
    async record(event) {
      await events.insertOne({ ...toEvent(event), atDate: new Date(event.at) });
    },
    async list(filter) {
      const query: Filter<AuditDoc> = {};
      if (filter?.type !== undefined) query.type = filter.type;
      if (filter?.subject !== undefined) query.subject = filter.subject;
      // _id (an ObjectId) breaks ties in insertion order within one process.
      const docs = await events.find(query, { projection: { _id: 0, atDate: 0 } }).sort({ at: 1, _id: 1 }).toArray();
      return docs.map(toEvent);
    },
  };
}
