import { isValidVin } from '../domain/vin.ts';
import { metrics } from '../metrics/metrics.ts';
import type { VehicleLimits } from '../rate-limit/limits.ts';
import { fragmentOf, type LatestOfVin } from '../read-model/read-model.ts';
import type { DeliveryContext } from './context.ts';
import type { Subscription } from '../store/contract.ts';
import { suppliedItems } from './capabilities.ts';
import { itemError, vehicleError, type DeliveryError, type VehicleErrorCode } from './error-codes.ts';
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
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * Answers a checked delivery request with the UTF-8 JSON of an {@link InVehicleResponse}: one
 * entry per requested vehicle, in request order (a VIN asked twice is answered twice, counted
 * once). The latest payloads come from the read model (src/read-model/read-model.ts) as the
 * JSON text the store holds and are spliced into the answer as is; the part of the answer built
 * from one VIN's payloads is kept with them until they change, since consumers repeat the same
 * request shape (parsing, re-serializing and even joining 200 payloads per request were most of
 * the cost of this call: bench/delivery.ts).
 * A failed read is CAR.VE.907 for the vehicles it concerned. `candidates` are the request's
 * well-formed VINs, passed in when the caller worked them out already (for the rate limits).
 */
export async function deliverInVehicle(
  services: Pick<DeliveryContext, 'adapters' | 'catalog' | 'clock' | 'logger' | 'readModel' | 'vehicleItems'>,
  subscription: Subscription,
  request: DeliveryRequest,
  limits: VehicleLimits,
  candidates: string[] = wellFormedVins(request),
): Promise<Buffer> {
  const { catalog, readModel, logger } = services;
  const deliveredAt = services.clock.now().toISOString();
  const access = await checkVehicleAccess(services, subscription, candidates, limits);
  const readable = candidates.filter((vin) => access.get(vin)?.ok);

  const pullItems = request.items.filter((i) => catalog.get(i)?.deliveryMethod !== 'push');
  let latest = new Map<string, LatestOfVin>();
  let readFailed = false;
  if (readable.length > 0 && pullItems.length > 0) {
    try {
      latest = await readModel.latest(readable, pullItems);
    } catch (err) {
      logger.error({ err }, 'latest data points read failed');
      readFailed = true;
    }
  }

  const shape = request.items.join('\n');
  const chunks: Buffer[] = [Buffer.from(`{"version":${json(API_VERSION)},"deliveredAt":${json(deliveredAt)},"inVehicleData":[`)];
  let served = 0;
  for (const identifier of request.identifiers) {
    if (chunks.length > 1) chunks.push(COMMA);
    // Only well-formed VINs were looked up, so an entry implies type VIN and a valid format.
    const a = identifier.type === 'VIN' ? access.get(identifier.value) : undefined;
    if (!a?.ok || readFailed) {
      const code: VehicleErrorCode =
        identifier.type !== 'VIN' ? 'CAR.VE.902' : !isValidVin(identifier.value) ? 'CAR.VE.901' : a && !a.ok ? a.code : 'CAR.VE.907';
      metrics.deliveryVehicleResults.inc({ result: code });
      const echo = json({ type: identifier.type, value: identifier.value });
      chunks.push(Buffer.from(`{"identifier":${echo},"error":${json(vehicleError[code])}}`));
      continue;
    }
    served++;
    const points = latest.get(identifier.value);
    const manufacturer = a.manufacturer ?? '';
    let entry = points && fragmentOf(points, manufacturer, shape);
    if (!entry) {
      entry = vehicleEntry(services, identifier.value, a.manufacturer, request.items, points);
      if (points) readModel.rememberFragment(points, manufacturer, shape, entry);
    }
    chunks.push(entry);
  }
  if (served > 0) metrics.deliveryVehicleResults.inc({ result: 'data' }, served);
  chunks.push(CLOSE);
  return Buffer.concat(chunks);
}

/**
 * One served vehicle's whole entry, `{"identifier":…,"response":{…}}`, UTF-8 encoded: one
 * member per requested item, its latest data point or the item-level error.
 */
function vehicleEntry(
  services: Pick<DeliveryContext, 'adapters' | 'catalog' | 'vehicleItems'>,
  vin: string,
  manufacturer: string | null,
  items: readonly string[],
  points: LatestOfVin | undefined,
): Buffer {
  // What this vehicle can send at all: an item outside it is 910, never "not yet" (908).
  const supplied = suppliedItems(services, manufacturer, vin);
  const parts = items.map((item) => {
    const point = points?.payloads.get(item);
    let result: string;
    if (services.catalog.get(item)?.deliveryMethod === 'push') result = `{"error":${json(itemError['CAR.VE.909'])}}`;
    else if (point !== undefined) result = `{"dataPoint":${point}}`;
    else if (supplied && !supplied.has(item)) result = `{"error":${json(itemError['CAR.VE.910'])}}`;
    else result = `{"error":${json(itemError['CAR.VE.908'])}}`;
    return `${json(item)}:${result}`;
  });
  return Buffer.from(`{"identifier":${json({ type: 'VIN', value: vin })},"response":{${parts.join(',')}}}`);
}
