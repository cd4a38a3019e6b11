import type { Collection, Document, Filter } from 'mongodb';
import { BOUNDED } from './time-limits.ts';

/** Retention and erasure delete this many documents per operation. */
export const DELETE_CHUNK = 5000;

/**
 * Deletes what the filter matches in chunks: days of history (millions of documents), a month of
 * push deliveries or a VIN's whole history are many short operations, each well inside the
 * client's socket timeout and none holding the server for minutes, instead of one that could
 * outlast both. Returns how many.
 */
export async function deleteInChunks<T extends Document>(coll: Collection<T>, filter: Filter<T>): Promise<number> {
  let total = 0;
  for (;;) {
    // Bounded on the server (src/store/mongo/time-limits.ts): a lookup that outlasts MAX_TIME_MS
    // ends with a transient error; a chunk's delete stopped part-way leaves the rest to the next call.
    const ids = (await coll.find(filter, { projection: { _id: 1 }, ...BOUNDED }).limit(DELETE_CHUNK).toArray()).map((d) => d._id);
    // The filter again: a document changed since it was found (a quarantined message that
    // failed again) no longer matches and stays, as SQLite's single statement decides.
    if (ids.length > 0) total += (await coll.deleteMany({ $and: [filter, { _id: { $in: ids } }] } as Filter<T>, BOUNDED)).deletedCount;
    if (ids.length < DELETE_CHUNK) return total;
  }
}
