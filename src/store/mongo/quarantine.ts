import type { Db, Filter } from 'mongodb';
import type { QuarantinedMessage, QuarantineRepo } from '../contract.ts';
import { checkQuarantineLimit, decodeQuarantineCursor, encodeQuarantineCursor } from '../quarantine-cursor.ts';

type Doc = Omit<QuarantinedMessage, 'id'> & { _id: string };

const toMessage = ({ _id, ...rest }: Doc): QuarantinedMessage => ({ id: _id, ...rest });

/** Escapes a string for use as a literal inside a regular expression. */
const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** MongoDB engine of the QuarantineRepo. Creates its indexes before it is used. */
export async function createMongoQuarantineRepo(db: Db): Promise<QuarantineRepo> {
  const col = db.collection<Doc>('quarantine');
  await col.createIndexes([
    { key: { lastFailedAt: -1, _id: -1 }, name: 'quarantine_failed_idx' },
    { key: { manufacturer: 1, lastFailedAt: -1 }, name: 'quarantine_manufacturer_idx' },
    { key: { vin: 1 }, name: 'quarantine_vin_idx' },
  ]);

  return {
    async put(m) {
      const { id, quarantinedAt, ...rest } = m;
      // The _id is the content hash, so an upsert never makes a second entry; the filter on
      // lastFailedAt keeps a redelivered batch's identical report from counting twice.
      try {
        await col.updateOne(
          { _id: id, lastFailedAt: { $ne: m.lastFailedAt } },
          {
            $set: { code: rest.code, reason: rest.reason, mappingVersion: rest.mappingVersion, lastFailedAt: rest.lastFailedAt },
            $inc: { failures: 1 },
            $setOnInsert: {
              manufacturer: rest.manufacturer,
              messageType: rest.messageType,
              vin: rest.vin,
              topic: rest.topic,
              raw: rest.raw,
              rawEncoding: rest.rawEncoding,
              receivedAt: rest.receivedAt,
              quarantinedAt,
            },
          },
          { upsert: true },
        );
      } catch (err) {
        // E11000: the entry exists with the same lastFailedAt (the filter missed it, the
        // upsert collided on _id): the same report again, nothing to change.
        if ((err as { code?: number }).code === 11000) return;
        throw err;
      }
    },
    async get(ids) {
      return ids.length === 0 ? [] : (await col.find({ _id: { $in: ids } }).toArray()).map(toMessage);
    },
    async list(filter, limit, cursor) {
      checkQuarantineLimit(limit);
      const and: Filter<Doc>[] = [];
      if (filter.manufacturer !== undefined) and.push({ manufacturer: filter.manufacturer });
      if (filter.code !== undefined) and.push({ code: filter.code });
      if (filter.since !== undefined) and.push({ lastFailedAt: { $gte: filter.since } });
      if (filter.until !== undefined) and.push({ lastFailedAt: { $lt: filter.until } });
      if (cursor !== undefined) {
        const c = decodeQuarantineCursor(cursor);
        and.push({ $or: [{ lastFailedAt: { $lt: c.lastFailedAt } }, { lastFailedAt: c.lastFailedAt, _id: { $lt: c.id } }] });
      }
      const docs = await col
        .find(and.length ? { $and: and } : {})
        .sort({ lastFailedAt: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
      const items = docs.slice(0, limit).map(toMessage);
      const last = items.at(-1);
      return { items, nextCursor: docs.length > limit && last ? encodeQuarantineCursor(last.lastFailedAt, last.id) : null };
    },
    async remove(ids) {
      return ids.length === 0 ? 0 : (await col.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
    async deleteOlderThan(cutoff) {
      return (await col.deleteMany({ lastFailedAt: { $lt: cutoff } })).deletedCount;
    },
    async count() {
      return col.countDocuments();
    },
    async deleteByVin(vin) {
      const res = await col.deleteMany({ $or: [{ vin }, { vin: null, raw: { $regex: literal(vin) } }] });
      return res.deletedCount;
    },
  };
}
