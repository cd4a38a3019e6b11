import { isValidVin } from '../management/vin.ts';
import type { VehicleLimits } from '../rate-limit/limits.ts';
import type { Services } from '../services.ts';
import type { DataPoint, Subscription } from '../store/contract.ts';
import { itemError, vehicleError, type DeliveryError } from './error-codes.ts';
import { API_VERSION, type DeliveryRequest, type VehicleIdentifier } from './request.ts';
import { checkVehicleAccess } from './vehicle-access.ts';

/** The distinct VINs of the request that are well formed (type VIN, valid format). */
export function wellFormedVins(request: DeliveryRequest): string[] {
  return [...new Set(request.identifiers.filter((id) => id.type === 'VIN' && isValidVin(id.value)).map((id) => id.value))];
}

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

/**
 * Answers a checked delivery request: one entry per requested vehicle, in request order (a VIN
 * asked twice is answered twice, counted once). The latest value of every (VIN, item) pair
 * comes from one store query. A failed read is CAR.VE.907 for the vehicles it concerned.
 */
export async function deliverInVehicle(
  services: Services,
  subscription: Subscription,
  request: DeliveryRequest,
  limits: VehicleLimits,
): Promise<InVehicleResponse> {
  const { catalog, adapters, store, logger } = services;
  const deliveredAt = services.clock.now().toISOString();
  const candidates = wellFormedVins(request);
  const access = await checkVehicleAccess(services, subscription, candidates, limits);
  const readable = candidates.filter((vin) => access.get(vin)?.ok);

  const pullItems = request.items.filter((i) => catalog.get(i)?.deliveryMethod === 'pull');
  const latest = new Map<string, DataPoint>();
  let readFailed = false;
  if (readable.length > 0 && pullItems.length > 0) {
    try {
      for (const p of await store.dataPoints.latest(readable, pullItems)) latest.set(`${p.vin}\u0000${p.item}`, p);
    } catch (err) {
      logger.error({ err }, 'latest data points read failed');
      readFailed = true;
    }
  }

  const inVehicleData = request.identifiers.map((identifier): InVehicleEntry => {
    const echo = { type: identifier.type, value: identifier.value };
    if (identifier.type !== 'VIN') return { identifier: echo, error: vehicleError['CAR.VE.902'] };
    if (!isValidVin(identifier.value)) return { identifier: echo, error: vehicleError['CAR.VE.901'] };
    const a = access.get(identifier.value);
    if (!a) return { identifier: echo, error: vehicleError['CAR.VE.907'] };
    if (!a.ok) return { identifier: echo, error: vehicleError[a.code] };
    if (readFailed) return { identifier: echo, error: vehicleError['CAR.VE.907'] };
    const supplied = a.manufacturer ? adapters.get(a.manufacturer)?.manifest.items : undefined;
    const response: Record<string, ItemResult> = {};
    for (const item of request.items) {
      const point = latest.get(`${identifier.value}\u0000${item}`);
      if (catalog.get(item)?.deliveryMethod === 'push') response[item] = { error: itemError['CAR.VE.909'] };
      else if (point) response[item] = { dataPoint: point.payload };
      else if (supplied && !supplied.includes(item)) response[item] = { error: itemError['CAR.VE.910'] };
      else response[item] = { error: itemError['CAR.VE.908'] };
    }
    return { identifier: echo, response };
  });
  return { version: API_VERSION, deliveredAt, inVehicleData };
}
