import type { DataPoint } from '../contract.ts';
import { entryOf, itemField, type PointEntry } from './buckets.ts';

/**
 * Latest values: one document per vehicle, `_id` the VIN.
 *
 *   { _id: vin, manufacturer, receivedAt, i: { <item field>: { t: timestampMs, j, m, v, r } } }
 *
 * A message costs one update of it, whatever its number of items; delivery reads one document
 * per vehicle, projected to the items asked for. `manufacturer` and `receivedAt` are the largest
 * of the held values' (what the console's fleet page and freshness report show, as SQLite's max()).
 */
export interface LatestEntry extends PointEntry {
  t: number;
}

export interface LatestDoc {
  _id: string;
  manufacturer?: string;
  receivedAt?: string;
  i?: Record<string, LatestEntry>;
}

/** The newest point per (vin, item) of a batch, grouped by VIN; on equal times the first one wins. */
export function newestPerVehicle(points: DataPoint[]): Map<string, DataPoint[]> {
  const newest = new Map<string, Map<string, DataPoint>>();
  for (const p of points) {
    const items = newest.get(p.vin) ?? new Map<string, DataPoint>();
    newest.set(p.vin, items);
    const seen = items.get(p.item);
    if (!seen || p.timestampMs > seen.timestampMs) items.set(p.item, p);
  }
  return new Map([...newest].map(([vin, items]) => [vin, [...items.values()]]));
}

/**
 * The update pipeline of one vehicle's latest document (an upsert of `_id: vin`): each item's
 * entry is replaced only by a strictly newer point ("newer wins"; an equal time keeps the stored
 * one, so a redelivered message changes nothing). All expressions of the $set read the document
 * as it was, so `receivedAt` and `manufacturer` take only the entries that win. Values from the
 * message are $literal: text starting with `$` is data, never a field path.
 */
export function latestUpdate(points: DataPoint[]): object[] {
  const set: Record<string, unknown> = {};
  const won: Array<{ wins: object; point: DataPoint }> = [];
  for (const p of points) {
    const path = `i.${itemField(p.item)}`;
    // A missing entry's time is null, which every number is greater than.
    const wins = { $gt: [{ $literal: p.timestampMs }, { $ifNull: [`$${path}.t`, null] }] };
    set[path] = { $cond: [wins, { $literal: { t: p.timestampMs, ...entryOf(p) } satisfies LatestEntry }, `$${path}`] };
    won.push({ wins, point: p });
  }
  // $max skips nulls: an entry that does not win adds nothing.
  set['receivedAt'] = { $max: ['$receivedAt', ...won.map(({ wins, point }) => ({ $cond: [wins, { $literal: point.receivedAt }, null] }))] };
  set['manufacturer'] = { $max: ['$manufacturer', ...won.map(({ wins, point }) => ({ $cond: [wins, { $literal: point.manufacturer }, null] }))] };
  return [{ $set: set }];
}

/** The same update applied in memory, as the server applies it (the tests' model). */
export function applyLatestInMemory(doc: LatestDoc | null, vin: string, points: DataPoint[]): LatestDoc {
  const next: LatestDoc = { ...(doc ?? { _id: vin }), i: { ...doc?.i } };
  const max = (a: string | undefined, b: string) => (a === undefined || b > a ? b : a);
  for (const p of points) {
    const f = itemField(p.item);
    const held = doc?.i?.[f];
    if (held !== undefined && !(p.timestampMs > held.t)) continue;
    next.i![f] = { t: p.timestampMs, ...entryOf(p) };
    next.receivedAt = max(next.receivedAt, p.receivedAt);
    next.manufacturer = max(next.manufacturer, p.manufacturer);
  }
  return next;
}
