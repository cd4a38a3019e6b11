import type { FunnelRow } from '../contract.ts';

/** A VIN of a fleet page as the MongoDB engine gathers it from vehicleLatest or vehicles. */
export interface VinSummary {
  vin: string;
  manufacturer: string | null;
  receivedAt?: string;
}

/** One document read from vehicleLatest (with receivedAt, its VIN the _id) or vehicles (without). */
export interface VinDoc {
  vin: string;
  manufacturer?: string | null;
  receivedAt?: string;
}

/** The larger of two optional strings, as SQL's max(): a missing one is skipped. */
const max = (a: string | null | undefined, b: string | null | undefined): string | null => (a == null ? (b ?? null) : b == null || a >= b ? a : b);

/**
 * Adds one document, read in VIN order, to the page being gathered. A VIN's documents come one
 * after another, so a new VIN once `limit` are gathered means the page is complete: returns false
 * then and leaves `page` as it is. A VIN's manufacturer and receivedAt are the largest of its
 * documents', like the SQLite engine's max(): a VIN activated with no manufacturer in one
 * subscription and with one in another shows that one, whichever document comes first.
 */
export function addVinDoc(page: Map<string, VinSummary>, d: VinDoc, limit: number): boolean {
  const seen = page.get(d.vin);
  if (!seen) {
    if (page.size >= limit) return false;
    page.set(d.vin, { vin: d.vin, manufacturer: d.manufacturer ?? null, ...(d.receivedAt ? { receivedAt: d.receivedAt } : {}) });
    return true;
  }
  seen.manufacturer = max(seen.manufacturer, d.manufacturer);
  const receivedAt = max(seen.receivedAt, d.receivedAt);
  if (receivedAt !== null) seen.receivedAt = receivedAt;
  return true;
}

/**
 * The funnel's order: by manufacturer, null last, comparing strings by code unit as SQLite's
 * BINARY collation does (localeCompare would put "b" before "C" where SQLite puts it after).
 */
export function byManufacturer(a: Pick<FunnelRow, 'manufacturer'>, b: Pick<FunnelRow, 'manufacturer'>): number {
  if (a.manufacturer === b.manufacturer) return 0;
  if (a.manufacturer === null) return 1;
  if (b.manufacturer === null) return -1;
  return a.manufacturer < b.manufacturer ? -1 : 1;
}
