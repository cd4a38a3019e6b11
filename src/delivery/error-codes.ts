/**
 * The vehicle-level and item-level error codes of in-vehicle delivery (api-contract section 6),
 * each with its fixed message. docs/delivery-errors.md documents them for consumers; keep the two
 * in step (test/delivery/error-codes.test.ts checks that every code here is documented there).
 */
export const VEHICLE_ERRORS = {
  'CAR.VE.901': 'VIN format invalid.',
  'CAR.VE.902': 'Identifier type not supported, use VIN.',
  'CAR.VE.903': 'Vehicle not activated in this subscription.',
  'CAR.VE.905': 'No active consent for this vehicle and subscription.',
  'CAR.VE.906': 'Request limit for this vehicle exceeded.',
  'CAR.VE.907': 'Provider-side failure. Please try again later.',
} as const;

export const ITEM_ERRORS = {
  'CAR.VE.908': 'No data received yet for this item.',
  'CAR.VE.909': 'Item is delivered by push only; configure a webhook to receive it.',
  'CAR.VE.910': "Item is not supplied by this vehicle's manufacturer.",
} as const;

export type VehicleErrorCode = keyof typeof VEHICLE_ERRORS;
export type ItemErrorCode = keyof typeof ITEM_ERRORS;

export interface DeliveryError {
  code: string;
  message: string;
}

/** Frozen, shared error objects: the hot path builds none per request. */
const frozen = <K extends string>(table: Record<K, string>): Record<K, DeliveryError> =>
  Object.fromEntries(
    Object.entries<string>(table).map(([code, message]) => [code, Object.freeze({ code, message })]),
  ) as Record<K, DeliveryError>;

export const vehicleError: Record<VehicleErrorCode, DeliveryError> = frozen(VEHICLE_ERRORS);
export const itemError: Record<ItemErrorCode, DeliveryError> = frozen(ITEM_ERRORS);
