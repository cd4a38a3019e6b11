import { apiErrors } from '../../errors.ts';

/**
 * The `limit` query parameter of the admin list endpoints. Query strings are not coerced by the
 * schema layer (the app turns coercion off), so it arrives as digits and is checked here.
 */
export function pageSize(raw: string | undefined, fallback = 100): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw apiErrors.badRequest('limit must be a whole number from 1 to 1000.');
  return n;
}
