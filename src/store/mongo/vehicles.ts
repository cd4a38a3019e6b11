import type { Db } from 'mongodb';
import type { Filter } from 'mongodb';
import type { VehicleActivation, VehiclePage, VehicleRepo } from '../contract.ts';
import {
  checkVehicleLimit,
  decodeActivatedVehicleCursor,
  decodeSubscriptionVehicleCursor,
  encodeActivatedVehicleCursor,
  encodeSubscriptionVehicleCursor,
} from '../vehicle-cursor.ts';
import { upsertRetrying } from './errors.ts';

const toVehicle = (d: VehicleActivation): VehicleActivation => ({
  subscriptionId: d.subscriptionId,
  vin: d.vin,
  manufacturer: d.manufacturer ?? null,
  status: d.status,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** MongoDB engine of the VehicleRepo. Its indexes: src/store/mongo/layout.ts (built by `store migrate`). */
export async function createMongoVehicleRepo(db: Db): Promise<VehicleRepo> {
  const vehicles = db.collection<VehicleActivation>('vehicles');
  const noId = { projection: { _id: 0 } } as const;
  /** limit + 1 documents read: the page, and whether another follows (then its cursor). */
  const page = (docs: VehicleActivation[], limit: number, cursorOf: (last: VehicleActivation) => string): VehiclePage => {
    const items = docs.slice(0, limit).map(toVehicle);
    const last = items.at(-1);
    return { items, nextCursor: docs.length > limit && last ? cursorOf(last) : null };
  };

  return {
    async upsert(vehicle) {
      const doc = toVehicle(vehicle);
      // Upsert only on the uniquely indexed filter; a lost insert race is retried as an update.
      await upsertRetrying(() =>
        vehicles.replaceOne({ subscriptionId: doc.subscriptionId, vin: doc.vin }, doc, { upsert: true }),
      );
    },
    async get(subscriptionId, vin) {
      const doc = await vehicles.findOne({ subscriptionId, vin }, noId);
      return doc ? toVehicle(doc) : null;
    },
    async getMany(subscriptionId, vins) {
      if (vins.length === 0) return [];
      // Served by the unique (subscriptionId, vin) index.
      return (await vehicles.find({ subscriptionId, vin: { $in: [...new Set(vins)] } }, noId).toArray()).map(toVehicle);
    },
    async listBySubscription(subscriptionId) {
      return (await vehicles.find({ subscriptionId }, noId).sort({ createdAt: 1, vin: 1 }).toArray()).map(toVehicle);
    },
    async pageBySubscription(subscriptionId, limit, cursor) {
      checkVehicleLimit(limit);
      const filter: Filter<VehicleActivation> = { subscriptionId };
      if (cursor !== undefined) {
        const after = decodeSubscriptionVehicleCursor(cursor);
        filter.$or = [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, vin: { $gt: after.vin } }];
      }
      const docs = await vehicles.find(filter, noId).sort({ createdAt: 1, vin: 1 }).limit(limit + 1).toArray();
      return page(docs, limit, (last) => encodeSubscriptionVehicleCursor(last.createdAt, last.vin));
    },
    async pageActivated(manufacturer, limit, cursor) {
      checkVehicleLimit(limit);
      const filter: Filter<VehicleActivation> = { status: 'ACTIVATED', manufacturer };
      if (cursor !== undefined) {
        const after = decodeActivatedVehicleCursor(cursor);
        filter.$or = [{ vin: { $gt: after.vin } }, { vin: after.vin, subscriptionId: { $gt: after.subscriptionId } }];
      }
      const docs = await vehicles.find(filter, noId).sort({ vin: 1, subscriptionId: 1 }).limit(limit + 1).toArray();
      return page(docs, limit, (last) => encodeActivatedVehicleCursor(last.vin, last.subscriptionId));
    },
    async listByVin(vin) {
      return (await vehicles.find({ vin }, noId).sort({ createdAt: 1, subscriptionId: 1 }).toArray()).map(toVehicle);
    },
    async transition(subscriptionId, vin, from, to, at) {
      if (from.length === 0) return null;
      // One atomic findOneAndUpdate: of two racing processes only one still matches `from`.
      const doc = await vehicles.findOneAndUpdate(
        { subscriptionId, vin, status: { $in: [...from] } },
        { $set: { status: to, updatedAt: at } },
        { returnDocument: 'after', projection: { _id: 0 } },
      );
      return doc ? toVehicle(doc) : null;
    },
    async deleteByVin(vin) {
      return (await vehicles.deleteMany({ vin })).deletedCount;
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      return (await vehicles.deleteMany({ subscriptionId, vin })).deletedCount;
    },
  };
}
