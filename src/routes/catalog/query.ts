import type { CatalogFilter } from '../../catalog/catalog.ts';
import { apiErrors } from '../../errors.ts';

// RFC 3339 date-time (offset or Z required, so the instant is unambiguous) or a full date.
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

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
    const ms = INSTANT.test(updatedSince) ? Date.parse(updatedSince) : Number.NaN;
    if (Number.isNaN(ms)) {
      throw apiErrors.badRequest('updatedSince must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z.');
    }
    filter.updatedSince = new Date(ms);
  }
  return filter;
}
