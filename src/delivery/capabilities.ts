import { declaredItems } from '../adapters/declared-items.ts';
import type { Adapter } from '../adapters/manifest.ts';
import type { DeliveryContext } from './context.ts';
import type { Subscription } from '../store/contract.ts';
import { vehicleError, type DeliveryError } from './error-codes.ts';
import { checkVehicleAccess } from './vehicle-access.ts';

/**
 * What a vehicle can deliver, in the catalog's words (Smartcar and High Mobility call these a
 * vehicle's capabilities): the items its manufacturer's manifest lists, narrowed to what the
 * manufacturer says this vehicle has (Services.vehicleItems; a combustion car sends no battery
 * charge). Delivery answers CAR.VE.910 for an item outside it, CAR.VE.908 ("not yet") inside.
 */
export function suppliedItems(services: Pick<DeliveryContext, 'adapters' | 'vehicleItems'>, manufacturer: string | null, vin: string): ReadonlySet<string> | null {
  if (!manufacturer) return null;
  const adapter = services.adapters.get(manufacturer);
  if (!adapter) return null;
  const own = services.vehicleItems(manufacturer, vin);
  return own ? ownItems(adapter, own) : declaredItems(adapter);
}

/**
 * The manifest's items the vehicle has, made once per (adapter, vehicle set): the simulated
 * manufacturer hands out one set per scenario, shared by its fleet copies.
 */
const ownSets = new WeakMap<Adapter, WeakMap<ReadonlySet<string>, ReadonlySet<string>>>();
function ownItems(adapter: Adapter, own: ReadonlySet<string>): ReadonlySet<string> {
  let byOwn = ownSets.get(adapter);
  if (!byOwn) ownSets.set(adapter, (byOwn = new WeakMap()));
  let set = byOwn.get(own);
  if (!set) byOwn.set(own, (set = new Set(adapter.manifest.items.filter((i) => own.has(i)))));
  return set;
}

/** One item of a vehicle's capabilities, as GET /management/v1/vehicles/{vin}/capabilities answers it. */
export interface ItemCapability {
  technicalName: string;
  deliveryMethod: 'pull' | 'push';
  /** The vehicle can send it (its manufacturer supplies it for this vehicle). */
  supplied: boolean;
  /** Data of it has arrived for the vehicle; only where the subscription may read the vehicle's data. */
  received?: boolean;
  /** The vehicle's time (else reception time) of the latest point, when `received`. */
  lastTimestamp?: string;
}

export interface VehicleCapabilities {
  vin: string;
  manufacturer: string | null;
  dataItems: ItemCapability[];
  /**
   * Why `received` is left out: the rules of delivery (CAR.VE.903 not activated, CAR.VE.905 no
   * active consent, CAR.VE.907 provider-side failure), since whether data arrived is the
   * vehicle's data too. Absent when `received` is given.
   */
  receivedUnknown?: DeliveryError;
}

/**
 * The capabilities of one of the subscription's vehicles, for the subscription's items. Under
 * the same rules as delivery (ACTIVATED, and an active consent when the legal basis is
 * CONSENT): whether this vehicle supplies each, and whether it has sent it; otherwise only
 * whether its manufacturer supplies each, and why the rest is not told.
 */
export async function vehicleCapabilities(
  services: Pick<DeliveryContext, 'adapters' | 'catalog' | 'logger' | 'readModel' | 'vehicleItems'>,
  subscription: Subscription,
  vin: string,
  manufacturer: string | null,
): Promise<VehicleCapabilities> {
  const access = (await checkVehicleAccess(services, subscription, [vin], { limited: new Set(), retryAfterS: 0 })).get(vin);
  // What this vehicle has (electric or not, say) is its data too: without the right to read it,
  // only what its manufacturer supplies in general, the same for every vehicle of the make.
  const supplied = access?.ok ? suppliedItems(services, manufacturer, vin) : suppliedItems({ ...services, vehicleItems: () => null }, manufacturer, vin);
  const items = subscription.dataItems.filter((i) => services.catalog.get(i));
  const dataItems: ItemCapability[] = items.map((technicalName) => ({
    technicalName,
    deliveryMethod: services.catalog.get(technicalName)!.deliveryMethod,
    supplied: supplied?.has(technicalName) ?? false,
  }));
  if (!access?.ok) return { vin, manufacturer, dataItems, receivedUnknown: vehicleError[access?.code ?? 'CAR.VE.907'] };
  let payloads: Map<string, string>;
  try {
    payloads = (await services.readModel.latest([vin], items)).get(vin)?.payloads ?? new Map();
  } catch (err) {
    services.logger.error({ err }, 'latest data points read failed');
    return { vin, manufacturer, dataItems, receivedUnknown: vehicleError['CAR.VE.907'] };
  }
  for (const d of dataItems) {
    const json = payloads.get(d.technicalName);
    d.received = json !== undefined;
    const at = json === undefined ? undefined : timeOf(json);
    if (at) d.lastTimestamp = at;
  }
  return { vin, manufacturer, dataItems };
}

function timeOf(json: string): string | undefined {
  try {
    const p = JSON.parse(json) as { timestamp?: unknown; receivedAt?: unknown };
    const t = typeof p.timestamp === 'string' ? p.timestamp : p.receivedAt;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}
