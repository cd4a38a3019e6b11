import type { FleetQuery } from './contract.ts';

/**
 * The VIN range of a fleet page, for both engines: after the previous page's last VIN, and
 * within the search prefix. VINs use digits and capitals only, so every VIN starting with the
 * prefix sorts before prefix + "~" (which sorts after "Z").
 */
export function fleetBounds(q: FleetQuery): { from: string; inclusive: boolean; hi: string | null } {
  const prefix = q.vinPrefix ?? '';
  const after = q.after ?? '';
  // One lower bound, not two: given both, SQLite's planner seeks by one of them and scans from there.
  const from = after >= prefix ? { from: after, inclusive: false } : { from: prefix, inclusive: true };
  return { ...from, hi: prefix === '' ? null : `${prefix}~` };
}

/**
 * One page of VINs from two sorted lists (VINs with data, VINs with an activation), each read
 * with limit + 1 rows: the union's first `limit`, and whether more follow.
 */
export function mergeVins(a: string[], b: string[], limit: number): { vins: string[]; nextAfter: string | null } {
  const all = [...new Set([...a, ...b])].sort();
  const vins = all.slice(0, limit);
  return { vins, nextAfter: all.length > limit ? vins[vins.length - 1]! : null };
}
