import { ApiError, apiErrors } from '../errors.ts';
import { isValidVin } from '../domain/vin.ts';
import type { VehicleLimits } from '../rate-limit/limits.ts';
import type { DeliveryContext } from './context.ts';
import type { HistoryQuery, Subscription } from '../store/contract.ts';
import { VEHICLE_ERRORS } from './error-codes.ts';
import { checkVehicleAccess } from './vehicle-access.ts';

export const HISTORY_DEFAULT_LIMIT = 100;
export const HISTORY_MAX_LIMIT = 1000;

export interface HistoryParams {
  vin: string;
  item: string;
  from?: string;
  to?: string;
  limit?: string;
  cursor?: string;
}

/** The 200 body of GET /delivery/v1/history/{vin}/{item} (docs/history.md). */
export interface HistoryResponse {
  identifier: { type: 'VIN'; value: string };
  item: string;
  /** Harmonized payloads, newest first. */
  dataPoints: Record<string, unknown>[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

function instant(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms)) throw apiErrors.badRequest(`${name} must be an ISO 8601 instant, e.g. 2026-01-01T00:00:00Z.`);
  return ms;
}

function pageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return HISTORY_DEFAULT_LIMIT;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw apiErrors.badRequest('limit must be a whole number of at least 1.');
  return Math.min(Number(raw), HISTORY_MAX_LIMIT);
}

/** The whole-request checks of a history call; the query, ready for the store. */
export function checkHistoryParams(subscription: Subscription, catalog: DeliveryContext['catalog'], params: HistoryParams): HistoryQuery {
  const { vin, item } = params;
  if (!isValidVin(vin)) throw apiErrors.badRequest(VEHICLE_ERRORS['CAR.VE.901']);
  if (!subscription.dataItems.includes(item) || !catalog.get(item)) throw apiErrors.itemsNotCovered([item]);
  const fromMs = instant('from', params.from);
  const toMs = instant('to', params.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) throw apiErrors.badRequest('from must be before to.');
  return {
    vin,
    item,
    limit: pageSize(params.limit),
    ...(fromMs !== undefined ? { fromMs } : {}),
    ...(toMs !== undefined ? { toMs } : {}),
    ...(params.cursor ? { cursor: params.cursor } : {}),
  };
}

/**
 * One page of a VIN's history of one item, under the checks of delivery: the item in the
 * subscription, the VIN ACTIVATED here, an active consent (legal basis CONSENT), and the
 * per-vehicle limit. Being a single-vehicle call, the vehicle-level outcomes become whole-request
 * errors: 903 → 404, 905 → 403, 906 → 429 with Retry-After, 907 → 503.
 */
export async function readHistory(
  services: Pick<DeliveryContext, 'logger' | 'readModel' | 'store'>,
  subscription: Subscription,
  query: HistoryQuery,
  limits: VehicleLimits,
): Promise<HistoryResponse> {
  const { vin, item } = query;
  const access = (await checkVehicleAccess(services, subscription, [vin], limits)).get(vin);
  if (!access?.ok) {
    switch (access?.code) {
      case 'CAR.VE.903':
        throw apiErrors.notFound(VEHICLE_ERRORS['CAR.VE.903']);
      case 'CAR.VE.905':
        throw apiErrors.forbidden(VEHICLE_ERRORS['CAR.VE.905']);
      case 'CAR.VE.906': {
        const e = apiErrors.rateLimited(access.retryAfterS ?? 1);
        throw new ApiError(429, VEHICLE_ERRORS['CAR.VE.906'], e.headers);
      }
      default:
        throw apiErrors.unavailable(5, VEHICLE_ERRORS['CAR.VE.907']);
    }
  }

  let page;
  try {
    page = await services.store.dataPoints.history(query);
  } catch (err) {
    if (err instanceof RangeError) throw apiErrors.badRequest('invalid cursor.');
    throw err;
  }
  return {
    identifier: { type: 'VIN', value: vin },
    item,
    dataPoints: page.items.map((p) => p.payload),
    nextCursor: page.nextCursor,
  };
}
