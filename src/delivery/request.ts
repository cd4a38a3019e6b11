import type { Catalog } from '../catalog/catalog.ts';
import { apiErrors } from '../errors.ts';
import type { Subscription } from '../store/contract.ts';

/** At most this many vehicles per delivery request (api-contract section 1). */
export const MAX_VEHICLES = 10;
export const API_VERSION = '1.0';

export interface VehicleIdentifier {
  type: string;
  value: string;
}

/** The body as the route schema lets it through: shapes checked, the contract's rules not yet. */
export interface DeliveryRequestBody {
  version: string;
  vehicles?: { identifier: VehicleIdentifier }[];
  dataItems?: string[];
}

export interface DeliveryRequest {
  identifiers: VehicleIdentifier[];
  /** Distinct, in request order. */
  items: string[];
}

/**
 * The whole-request checks of api-contract section 1, in this order, each with the contract's
 * exact text: version, empty vehicle list, empty item list, more than 10 vehicles, items that
 * are unknown or outside the subscription (all named in one message, in request order).
 */
export function checkDeliveryRequest(body: DeliveryRequestBody, subscription: Subscription, catalog: Catalog): DeliveryRequest {
  if (body.version !== API_VERSION) throw apiErrors.unsupportedVersion(body.version);
  const vehicles = body.vehicles ?? [];
  const dataItems = body.dataItems ?? [];
  if (vehicles.length === 0) throw apiErrors.emptyList('Vehicles');
  if (dataItems.length === 0) throw apiErrors.emptyList('DataItems');
  if (vehicles.length > MAX_VEHICLES) throw apiErrors.tooManyVehicles(MAX_VEHICLES);
  const items = [...new Set(dataItems)];
  const covered = new Set(subscription.dataItems);
  const outside = items.filter((i) => !covered.has(i) || !catalog.get(i));
  if (outside.length > 0) throw apiErrors.itemsNotCovered(outside);
  return { identifiers: vehicles.map((v) => v.identifier), items };
}
