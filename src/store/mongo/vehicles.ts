import type { Db } from 'mongodb';
import type { VehicleRepo } from '../contract.ts';
import { notImplemented } from '../not-implemented.ts';

/** MongoDB engine of the VehicleRepo. Creates its indexes before it is used. */
export async function createMongoVehicleRepo(_db: Db): Promise<VehicleRepo> {
  return notImplemented<VehicleRepo>('mongo.vehicles');
}
