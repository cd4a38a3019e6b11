import type { CatalogFilter } from '../../catalog/catalog.ts';
import { apiErrors } from '../../errors.ts';

// RFC 3339 date-time (offset or Z required, so the instant is unambiguous) or a full date.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/** Date.parse rolls 2024-02-30 over to March 1st; a client that sends it has a bug worth a 400. */
function parseInstant(text: string): number {
  const m = INSTANT.exec(text);
  if (!m) return Number.NaN;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return Number.NaN;
  return Date.parse(text);
}

/**
 * Turns the list query into a catalog filter. Bad values are a 400 with the contract's error
 * body; they are checked here rather than by the route schema so the text can say what is
 * accepted.
 */
export function parseListQuery(query: { deliveryMethod?: string; updatedSince?: string }): CatalogFilter {
  const filter: CatalogFilter = {};
  const { deliveryMethod, updatedSince } = query;
  if (deliveryMethod !== undefined) {
    if (deliveryMethod !== 'pull' && deliveryMethod !== 'push') {
      throw apiErrors.badRequest('deliveryMethod must be pull or push.');
    }
    filter.deliveryMethod = deliveryMethod;
  }
  if (updatedSince !== undefined) {
    const ms = parseInstant(updatedSince);
    if (Number.isNaN(ms)) {
      throw apiErrors.badRequest('updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.');
    }
    filter.updatedSince = new Date(ms);
  }
  return filter;
}
