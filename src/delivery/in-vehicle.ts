import { isValidVin } from '../management/vin.ts';
import { metrics } from '../metrics/metrics.ts';
import type { VehicleLimits } from '../rate-limit/limits.ts';
import type { Services } from '../services.ts';
import type { Subscription } from '../store/contract.ts';
import { itemError, vehicleError, type DeliveryError } from './error-codes.ts';
import { API_VERSION, type DeliveryRequest, type VehicleIdentifier } from './request.ts';
import { checkVehicleAccess } from './vehicle-access.ts';

export type ItemResult = { dataPoint: Record<string, unknown> } | { error: DeliveryError };

export type InVehicleEntry =
  | { identifier: VehicleIdentifier; response: Record<string, ItemResult> }
  | { identifier: VehicleIdentifier; error: DeliveryError };

/** The 200 body of POST /delivery/v1/in-vehicle (api-contract section 6). */
export interface InVehicleResponse {
  version: typeof API_VERSION;
  deliveredAt: string;
  inVehicleData: InVehicleEntry[];
}

/** The distinct VINs of the request that are well formed (type VIN, valid format). */
export function wellFormedVins(request: DeliveryRequest): string[] {
  return [...new Set(request.identifiers.filter((id) => id.type === 'VIN' && isValidVin(id.value)).map((id) => id.value))];
}

const json = JSON.stringify;

/**
 * Answers a checked delivery request with the JSON text of an {@link InVehicleResponse}: one
 * entry per requested vehicle, in request order (a VIN asked twice is answered twice, counted
 * once). The latest payload of every (VIN, item) pair comes from one store query, as the JSON
 * text the store holds, and is spliced into the answer as is: parsing and re-serializing 200
 * payloads per request was most of the cost of this call (see bench/delivery.ts).
 * A failed read is CAR.VE.907 for the vehicles it concerned.
 */
export async function deliverInVehicle(
  services: Services,
  subscription: Subscription,
  request: DeliveryRequest,
  limits: VehicleLimits,
): Promise<string> {
  const { catalog, adapters, store, logger } = services;
  const deliveredAt = services.clock.now().toISOString();
  const candidates = wellFormedVins(request);
  const access = await checkVehicleAccess(services, subscription, candidates, limits);
  const readable = candidates.filter((vin) => access.get(vin)?.ok);

  const pushOnly = new Set(request.items.filter((i) => catalog.get(i)?.deliveryMethod === 'push'));
  const pullItems = request.items.filter((i) => !pushOnly.has(i));
  const latest = new Map<string, Map<string, string>>();
  let readFailed = false;
  if (readable.length > 0 && pullItems.length > 0) {
    try {
      for (const p of await store.dataPoints.latestPayloadsJson(readable, pullItems)) {
        let byItem = latest.get(p.vin);
        if (!byItem) latest.set(p.vin, (byItem = new Map()));
        byItem.set(p.item, p.payloadJson);
      }
    } catch (err) {
      logger.error({ err }, 'latest data points read failed');
      readFailed = true;
    }
  }

  const itemKeys = request.items.map((item) => json(item));
  const entries = request.identifiers.map((identifier): string => {
    const echo = json({ type: identifier.type, value: identifier.value });
    const fail = (e: DeliveryError) => {
      metrics.deliveryVehicleResults.inc({ result: e.code });
      return `{"identifier":${echo},"error":${json(e)}}`;
    };
    if (identifier.type !== 'VIN') return fail(vehicleError['CAR.VE.902']);
    if (!isValidVin(identifier.value)) return fail(vehicleError['CAR.VE.901']);
    const a = access.get(identifier.value);
    if (!a) return fail(vehicleError['CAR.VE.907']);
    if (!a.ok) return fail(vehicleError[a.code]);
    if (readFailed) return fail(vehicleError['CAR.VE.907']);
    const supplied = a.manufacturer ? adapters.get(a.manufacturer)?.manifest.items : undefined;
    const points = latest.get(identifier.value);
    const parts = request.items.map((item, i) => {
      const point = pushOnly.has(item) ? undefined : points?.get(item);
      let result: string;
      if (pushOnly.has(item)) result = `{"error":${json(itemError['CAR.VE.909'])}}`;
      else if (point !== undefined) result = `{"dataPoint":${point}}`;
      else if (supplied && !supplied.includes(item)) result = `{"error":${json(itemError['CAR.VE.910'])}}`;
      else result = `{"error":${json(itemError['CAR.VE.908'])}}`;
      return `${itemKeys[i]}:${result}`;
    });
    metrics.deliveryVehicleResults.inc({ result: 'data' });
    return `{"identifier":${echo},"response":{${parts.join(',')}}}`;
  });
  return `{"version":${json(API_VERSION)},"deliveredAt":${json(deliveredAt)},"inVehicleData":[${entries.join(',')}]}`;
}
