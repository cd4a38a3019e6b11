import type { Db, Filter, UpdateFilter } from 'mongodb';
import type { QuarantinedMessage, QuarantineRepo } from '../contract.ts';
import { checkQuarantineLimit, decodeQuarantineCursor, encodeQuarantineCursor } from '../quarantine-cursor.ts';
import { deleteInChunks } from './delete-in-chunks.ts';
import { isDuplicateKey, upsertRetrying } from './errors.ts';
import { fitQuarantine } from './quarantine-fit.ts';
import { BOUNDED } from './time-limits.ts';

type Doc = Omit<QuarantinedMessage, 'id'> & { _id: string };

// An entry written before raw messages were capped has no rawTruncated: it was kept whole.
const toMessage = ({ _id, ...rest }: Doc): QuarantinedMessage => ({ id: _id, ...rest, rawTruncated: rest.rawTruncated === true });

/** Escapes a string for use as a literal inside a regular expression. */
const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The upsert of a put. The _id is the content hash, so it never makes a second entry; the filter
 * on lastFailedAt keeps a redelivered batch's identical report from counting twice. A VIN that a
 * later failure learned (a reprocess that now maps far enough) is kept, as SQLite's coalesce
 * does, so a GDPR erasure by VIN finds the entry even when its raw text does not hold the VIN.
 */
export function quarantineUpsert(m: QuarantinedMessage): { filter: Filter<Doc>; update: UpdateFilter<Doc> } {
  const { id, code, reason, mappingVersion, lastFailedAt, vin, failedItems, ...first } = m;
  const { manufacturer, messageType, topic, raw, rawEncoding, rawTruncated, receivedAt, quarantinedAt } = first;
  return {
    filter: { _id: id, lastFailedAt: { $ne: lastFailedAt } },
    update: {
      $set: { code, reason, mappingVersion, lastFailedAt, ...(vin !== null ? { vin } : {}), ...(failedItems ? { failedItems } : {}) },
      // A whole-message failure after a partial one: the entry no longer names single items.
      ...(failedItems ? {} : { $unset: { failedItems: '' as const } }),
      $inc: { failures: 1 },
      $setOnInsert: { manufacturer, messageType, topic, raw, rawEncoding, rawTruncated, receivedAt, quarantinedAt, ...(vin === null ? { vin } : {}) },
    },
  };
}

/** MongoDB engine of the QuarantineRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoQuarantineRepo(db: Db): Promise<QuarantineRepo> {
  const col = db.collection<Doc>('quarantine');

  return {
    async put(m) {
      // Under 16 MiB whatever QUARANTINE_MAX_RAW_BYTES allows: the raw message cut if need be.
      const { filter, update } = quarantineUpsert(fitQuarantine(m));
      // E11000: the entry exists but the filter missed it. Either it holds this very report
      // (same lastFailedAt: nothing to change) or a concurrent put inserted it first; one more
      // run then counts this failure, and a second E11000 means the same report again.
      try {
        await upsertRetrying(() => col.updateOne(filter, update, { upsert: true }), 2);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },
    async get(ids) {
      return ids.length === 0 ? [] : (await col.find({ _id: { $in: ids } }).toArray()).map(toMessage);
    },
    async list(filter, limit, cursor, opts = {}) {
      checkQuarantineLimit(limit);
      const and: Filter<Doc>[] = [];
      if (filter.manufacturer !== undefined) and.push({ manufacturer: filter.manufacturer });
      if (filter.code !== undefined) and.push({ code: filter.code });
      if (filter.vin !== undefined) and.push({ vin: filter.vin });
      if (filter.since !== undefined) and.push({ lastFailedAt: { $gte: filter.since } });
      if (filter.until !== undefined) and.push({ lastFailedAt: { $lt: filter.until } });
      if (cursor !== undefined) {
        const c = decodeQuarantineCursor(cursor);
        and.push({ $or: [{ lastFailedAt: { $lt: c.lastFailedAt } }, { lastFailedAt: c.lastFailedAt, _id: { $lt: c.id } }] });
      }
      const found = col
        // Bounded: a filter the index order does not serve (a rare code) walks the collection.
        .find(and.length ? { $and: and } : {}, BOUNDED)
        .sort({ lastFailedAt: -1, _id: -1 })
        .limit(limit + 1);
      // Document by document: a page stops at maxBytes of raw messages without reading the rest.
      const items: QuarantinedMessage[] = [];
      let bytes = 0;
      let more = false;
      try {
        for await (const doc of found) {
          const size = Buffer.byteLength(doc.raw);
          if (items.length === limit || (opts.maxBytes !== undefined && items.length > 0 && bytes + size > opts.maxBytes)) {
            more = true;
            break;
          }
          items.push(toMessage(doc));
          bytes += size;
        }
      } finally {
        await found.close();
      }
      const last = items.at(-1);
      return { items, nextCursor: more && last ? encodeQuarantineCursor(last.lastFailedAt, last.id) : null };
    },
    async remove(ids) {
      return ids.length === 0 ? 0 : (await col.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
    async deleteOlderThan(cutoff) {
      // Chunked: a broken mapping can quarantine every message for days before retention runs.
      return deleteInChunks(col, { lastFailedAt: { $lt: cutoff } });
    },
    async count() {
      // From the collection's metadata: a gauge scraped every few seconds must not read every
      // raw message (countDocuments scans the collection).
      return col.estimatedDocumentCount();
    },
    async deleteByVin(vin) {
      // No maxTimeMS (src/store/mongo/time-limits.ts): the raw-text search reads every entry without
      // a VIN, and an erasure stopped part-way would start that search over each time it is repeated.
      // Past the socket timeout the server finishes the delete anyway; the repeated erasure finds it done.
      const res = await col.deleteMany({ $or: [{ vin }, { vin: null, raw: { $regex: literal(vin) } }] });
      return res.deletedCount;
    },
  };
}
