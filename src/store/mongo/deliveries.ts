import type { Db, Filter } from 'mongodb';
import type { DeliveryRecord, DeliveryRepo } from '../contract.ts';
import { IN_FLIGHT_STATUSES, MAX_STORED_ATTEMPTS } from '../contract/deliveries.ts';
import { DEFAULT_ENDPOINT } from '../contract/webhooks.ts';
import { deleteInChunks } from './delete-in-chunks.ts';
import { isDuplicateKey } from './errors.ts';
import { BOUNDED } from './time-limits.ts';

/**
 * `_id` is the transactionId: the primary key is the durable dedup of fan-out. The payload is
 * kept as JSON text, as data points are (src/store/mongo/data-points.ts: BSON refuses some keys).
 */
type DeliveryDoc = Omit<DeliveryRecord, 'transactionId' | 'payload'> & {
  _id: string;
  payloadJson: string;
  /** Documents written before payloads were kept as text (docs/operations.md, upgrading). */
  payload?: Record<string, unknown>;
};

const toRecord = ({ _id, payloadJson, payload, ...rest }: DeliveryDoc): DeliveryRecord => ({
  transactionId: _id,
  ...rest,
  payload: payloadJson === undefined ? payload! : (JSON.parse(payloadJson) as Record<string, unknown>),
});

/** MongoDB engine of the DeliveryRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoDeliveryRepo(db: Db): Promise<DeliveryRepo> {
  const col = db.collection<DeliveryDoc>('deliveries');

  return {
    async insertIfAbsent(record) {
      const { transactionId, payload, endpointId, ...rest } = record;
      // The default endpoint's deliveries carry no endpointId, as those from before there were several.
      const endpoint = endpointId && endpointId !== DEFAULT_ENDPOINT ? { endpointId } : {};
      try {
        await col.insertOne({ _id: transactionId, ...rest, ...endpoint, payloadJson: JSON.stringify(payload) });
        return true;
      } catch (err) {
        // E11000 on _id: the event was fanned out before (a retried pipeline batch).
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async get(transactionId) {
      const doc = await col.findOne({ _id: transactionId });
      return doc ? toRecord(doc) : null;
    },
    async list(q) {
      const filter: Filter<DeliveryDoc> = { subscriptionId: q.subscriptionId };
      if (q.endpointId) filter.endpointId = q.endpointId === DEFAULT_ENDPOINT ? { $exists: false } : q.endpointId;
      if (q.status) filter.status = q.status;
      if (q.kinds) filter.kind = { $in: [...q.kinds] };
      if (q.since || q.until) {
        filter.createdAt = { ...(q.since ? { $gte: q.since } : {}), ...(q.until ? { $lt: q.until } : {}) };
      }
      // Bounded: a kind filter is not in the index, so a rare kind walks the subscription's rows.
      const docs = await col
        .find(filter, BOUNDED)
        .sort({ createdAt: -1, _id: -1 })
        .limit(Math.max(1, Math.min(1000, q.limit)))
        .toArray();
      return docs.map(toRecord);
    },
    async listOverdue(before, limit, after) {
      // updatedAt and nextAttemptAt are ISO strings in UTC with milliseconds, so strings order as
      // instants. $not $gte also matches the null nextAttemptAt of a PENDING row.
      const filter: Filter<DeliveryDoc> = {
        status: { $in: [...IN_FLIGHT_STATUSES] },
        updatedAt: { $lt: before },
        nextAttemptAt: { $not: { $gte: before } },
      };
      if (after) {
        // The range bound beside the $or keeps the index scan from starting over at each page.
        filter.updatedAt = { $gte: after.updatedAt, $lt: before };
        filter.$or = [{ updatedAt: { $gt: after.updatedAt } }, { updatedAt: after.updatedAt, _id: { $gt: after.transactionId } }];
      }
      const docs = await col
        .find(filter, BOUNDED)
        .sort({ updatedAt: 1, _id: 1 })
        .limit(Math.max(1, Math.min(1000, limit)))
        .toArray();
      return docs.map(toRecord);
    },
    async recordAttempt(transactionId, attempt, outcome) {
      const res = await col.updateOne(
        { _id: transactionId },
        {
          // $slice keeps the newest attempts, as the SQLite engine does.
          $push: { attempts: { $each: [attempt], $slice: -MAX_STORED_ATTEMPTS } },
          $set: {
            status: outcome.status,
            lastError: outcome.lastError,
            nextAttemptAt: outcome.nextAttemptAt,
            updatedAt: outcome.at,
          },
        },
      );
      return res.matchedCount === 1;
    },
    async transition(transactionId, from, to, at, lastError) {
      if (from.length === 0) return null;
      const doc = await col.findOneAndUpdate(
        { _id: transactionId, status: { $in: [...from] } },
        {
          $set: {
            status: to,
            nextAttemptAt: null,
            updatedAt: at,
            ...(lastError === undefined ? {} : { lastError }),
          },
        },
        { returnDocument: 'after' },
      );
      return doc ? toRecord(doc) : null;
    },
    // A VIN's deliveries can be many (every event and update pushed for it): chunked like history.
    async deleteByVin(vin) {
      return deleteInChunks(col, { vin });
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      return deleteInChunks(col, { subscriptionId, vin });
    },
    async deleteOlderThan(cutoff) {
      // createdAt is an ISO string in UTC with milliseconds everywhere, so strings order as instants.
      return deleteInChunks(col, { createdAt: { $lt: cutoff } });
    },
  };
}
