import type { VehicleLimits } from '../rate-limit/limits.ts';
import type { DeliveryContext } from './context.ts';
import type { Subscription } from '../store/contract.ts';
import type { VehicleErrorCode } from './error-codes.ts';

/** Whether the subscription may read a VIN now, and if so which manufacturer feeds it. */
export type VehicleAccess =
  | { ok: true; manufacturer: string | null }
  | { ok: false; code: VehicleErrorCode; retryAfterS?: number };

// Module level, not a closure per call: this runs for every VIN of every delivery request.
function deny(out: Map<string, VehicleAccess>, vin: string, code: VehicleErrorCode): void {
  out.set(vin, { ok: false, code });
}

/**
 * The checks every read of a VIN's data goes through (delivery and history), in this order:
 * ACTIVATED in this subscription (903; a VIN activated only in another consumer's subscription
 * is answered exactly like one never activated, because the lookup is keyed by this
 * subscription), an active consent when the subscription's legal basis is CONSENT (905), then
 * the per-vehicle request limit (906; counted beforehand, in the same Redis call as the
 * subscription's limit, for every well-formed VIN of the request).
 * A failed store read is 907 for the vehicles it concerned (one read for all the activations,
 * one for all the consents).
 * The activations and consents come from the read model (src/read-model/read-model.ts): a
 * deactivation or a revoked consent invalidates them, so it takes effect on the next request.
 */
export async function checkVehicleAccess(
  services: Pick<DeliveryContext, 'logger' | 'readModel'>,
  subscription: Subscription,
  vins: string[],
  limits: VehicleLimits,
): Promise<Map<string, VehicleAccess>> {
  const { readModel, logger } = services;
  const { subscriptionId } = subscription;
  const out = new Map<string, VehicleAccess>();

  let rows: Map<string, { status: string; manufacturer: string | null }>;
  try {
    rows = await readModel.vehicles(subscriptionId, vins);
  } catch (err) {
    logger.error({ err }, 'vehicle lookup failed');
    for (const vin of vins) deny(out, vin, 'CAR.VE.907');
    return out;
  }
  let activated: { vin: string; manufacturer: string | null }[] = [];
  for (const vin of vins) {
    const row = rows.get(vin);
    if (!row || row.status !== 'ACTIVATED') deny(out, vin, 'CAR.VE.903');
    else activated.push({ vin, manufacturer: row.manufacturer });
  }

  if (subscription.legalBasis === 'CONSENT' && activated.length > 0) {
    try {
      const consented = await readModel.activeVins(subscriptionId, activated.map((a) => a.vin));
      for (const a of activated) if (!consented.has(a.vin)) deny(out, a.vin, 'CAR.VE.905');
      activated = activated.filter((a) => consented.has(a.vin));
    } catch (err) {
      logger.error({ err }, 'consent lookup failed');
      for (const a of activated) deny(out, a.vin, 'CAR.VE.907');
      activated = [];
    }
  }

  const { limited, retryAfterS } = limits;
  for (const a of activated) {
    if (limited.has(a.vin)) out.set(a.vin, { ok: false, code: 'CAR.VE.906', retryAfterS });
    else out.set(a.vin, { ok: true, manufacturer: a.manufacturer });
  }
  return out;
}
