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

/** A page of vehicles; `nextCursor` (opaque) asks for the next one, null on the last page. */
export interface VehiclePage {
  items: VehicleActivation[];
  nextCursor: string | null;
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
  /** Every row of the subscription, by createdAt then VIN. Unbounded: tests and tools only; requests page. */
  listBySubscription(subscriptionId: string): Promise<VehicleActivation[]>;
  /**
   * One page (limit 1..1000) of the subscription's rows, in listBySubscription's order
   * (createdAt, then VIN); the cursor comes from the previous page. Keyset paging: rows added
   * meanwhile never shift or repeat the ones already read. A cursor we never made: RangeError.
   */
  pageBySubscription(subscriptionId: string, limit: number, cursor?: string): Promise<VehiclePage>;
  /**
   * One page (limit 1..1000) of the rows ACTIVATED with this manufacturer, in every
   * subscription, by VIN then subscription (a VIN's rows are next to each other): what the
   * poll reconciler walks without holding the fleet in memory.
   */
  pageActivated(manufacturer: string, limit: number, cursor?: string): Promise<VehiclePage>;
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
