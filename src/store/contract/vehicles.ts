export const VEHICLE_STATUSES = [
  'PENDING_ACTIVATION',
  'ACTIVATED',
  'INCAPABLE',
  'PENDING_DEACTIVATION',
  'DEACTIVATED',
] as const;
export type VehicleStatus = (typeof VEHICLE_STATUSES)[number];

/** A vehicle's activation in one subscription. Unique per (subscriptionId, vin). */
export interface VehicleActivation {
  subscriptionId: string;
  vin: string;
  /** Adapter id of the manufacturer that claims the VIN, null when none does. */
  manufacturer: string | null;
  status: VehicleStatus;
  createdAt: string;
  updatedAt: string;
}

export interface VehicleRepo {
  /** Inserts or replaces the (subscriptionId, vin) row. */
  upsert(vehicle: VehicleActivation): Promise<void>;
  get(subscriptionId: string, vin: string): Promise<VehicleActivation | null>;
  /**
   * The rows of these VINs in one subscription, in no particular order; VINs without a row are
   * left out. One query for a whole delivery request instead of one per vehicle.
   */
  getMany(subscriptionId: string, vins: readonly string[]): Promise<VehicleActivation[]>;
  listBySubscription(subscriptionId: string): Promise<VehicleActivation[]>;
  /** Every subscription's row for this VIN (push fan-out, erasure). */
  listByVin(vin: string): Promise<VehicleActivation[]>;
  /**
   * Sets the status only when the current one is in `from` (a conditional update, so two
   * processes cannot both win). Returns the updated row, or null when nothing matched.
   */
  transition(
    subscriptionId: string,
    vin: string,
    from: readonly VehicleStatus[],
    to: VehicleStatus,
    at: string,
  ): Promise<VehicleActivation | null>;
  /** Removes every row of the VIN (GDPR erasure). Returns how many. */
  deleteByVin(vin: string): Promise<number>;
  /** Removes the VIN's row in one subscription (GDPR erasure scoped to a subscription). Returns how many. */
  deleteBySubscriptionAndVin(subscriptionId: string, vin: string): Promise<number>;
}
