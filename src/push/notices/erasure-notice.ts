/** The `type` of the notice body, and the `item` of its deliveries row. */
export const ERASURE_NOTICE_TYPE = 'vehicle.data_erased';

/** VEHICLE: every data of the VIN was erased; SUBSCRIPTION: only what this subscription held of it. */
export type ErasureScope = 'VEHICLE' | 'SUBSCRIPTION';

/** What a notice's deliveries row keeps as its payload: no VIN, the row outlives the erasure. */
export interface ErasureNoticeFacts {
  scope: ErasureScope;
  erasedAt: string;
}

/**
 * The part of a `vehicle.data_erased` notice (GDPR Art. 19: recipients are told of an erasure) that
 * follows the envelope (src/push/notices/notice.ts): the VIN, when and how far it was erased.
 */
export function erasureNoticePart(facts: ErasureNoticeFacts, vin: string): Record<string, unknown> {
  return { vehicleDataErased: { identifier: { type: 'VIN', value: vin }, erasedAt: facts.erasedAt, scope: facts.scope } };
}
