import { apiErrors } from '../../errors.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../store/contract/deliveries.ts';

// RFC 3339 date-time with an offset or Z, so the instant is unambiguous.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * An instant from the query or body, normalised to `toISOString()` form: the store compares
 * times as strings, so "2026-03-01T12:00:00+02:00" must become "2026-03-01T10:00:00.000Z".
 */
export function parseInstant(name: string, value: string): string {
  const ms = INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw apiErrors.badRequest(`${name} must be an ISO 8601 date-time with a time zone, e.g. 2026-03-01T10:00:00Z.`);
  return new Date(ms).toISOString();
}

export interface DeliveryListQuery {
  endpointId?: string;
  status?: string;
  since?: string;
  until?: string;
  limit?: string;
}

/** An endpoint id as the endpoints API accepts it. */
export const ENDPOINT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

export function parseDeliveryQuery(q: DeliveryListQuery): { endpointId?: string; status?: DeliveryStatus; since?: string; until?: string; limit: number } {
  const out: { endpointId?: string; status?: DeliveryStatus; since?: string; until?: string; limit: number } = { limit: 100 };
  if (q.endpointId !== undefined) {
    if (!ENDPOINT_ID.test(q.endpointId)) throw apiErrors.badRequest('endpointId must be lowercase letters, digits and "-", at most 40.');
    out.endpointId = q.endpointId;
  }
  if (q.status !== undefined) {
    if (!(DELIVERY_STATUSES as readonly string[]).includes(q.status)) {
      throw apiErrors.badRequest(`status must be one of ${DELIVERY_STATUSES.join(', ')}.`);
    }
    out.status = q.status as DeliveryStatus;
  }
  if (q.since !== undefined) out.since = parseInstant('since', q.since);
  if (q.until !== undefined) out.until = parseInstant('until', q.until);
  if (q.limit !== undefined) {
    const n = /^\d{1,4}$/.test(q.limit) ? Number(q.limit) : Number.NaN;
    if (!(n >= 1 && n <= 1000)) throw apiErrors.badRequest('limit must be a whole number from 1 to 1000.');
    out.limit = n;
  }
  return out;
}
