import type { Db } from 'mongodb';
import type { VehicleActivation, VehicleRepo } from '../contract.ts';
import { upsertRetrying } from './errors.ts';

const toVehicle = (d: VehicleActivation): VehicleActivation => ({
  subscriptionId: d.subscriptionId,
  vin: d.vin,
  manufacturer: d.manufacturer ?? null,
  status: d.status,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** MongoDB engine of the VehicleRepo. Creates its indexes before it is used. */
export async function createMongoVehicleRepo(db: Db): Promise<VehicleRepo> {
  const vehicles = db.collection<VehicleActivation>('vehicles');
  await vehicles.createIndexes([
    // A VIN is activated at most once per subscription: two concurrent activations meet here.
    { key: { subscriptionId: 1, vin: 1 }, name: 'vehicles_subscription_vin_uq', unique: true },
    { key: { vin: 1 }, name: 'vehicles_vin_idx' },
  ]);
  const noId = { projection: { _id: 0 } } as const;

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
