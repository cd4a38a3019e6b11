import type { DeliveryRecord } from '../../store/contract.ts';

/**
 * The body of one push, in the live service's envelope (api-contract section 7): the pull
 * response format wrapped with forwardedAt, transactionId and subscriptionId. Returned as the
 * serialized string because it is serialized exactly once: those bytes are signed and sent
 * (the body sent is byte for byte the body signed). Only the one item of the delivery is in it
 * (thin payloads: the less a webhook carries, the less a leak of it tells).
 */
export function envelopeBody(delivery: DeliveryRecord, now: Date): string {
  const at = now.toISOString();
  return JSON.stringify({
    forwardedAt: at,
    transactionId: delivery.transactionId,
    subscriptionId: delivery.subscriptionId,
    inVehicleResponse: {
      version: '1.0',
      deliveredAt: at,
      inVehicleData: [
        {
          identifier: { type: 'VIN', value: delivery.vin },
          response: { [delivery.item]: { dataPoint: delivery.payload } },
        },
      ],
    },
  });
}
