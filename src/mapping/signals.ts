import { isoTime } from './iso-time.ts';

/**
 * Signal lists: manufacturers that send a flat list of named signals (VSS-style paths such as
 * `Vehicle.Speed`), each with its own time, instead of one nested document. A catalog item is
 * built from the signals of one instant (a position from its latitude and longitude), so the
 * recurring step is grouping the list by time; the rest is plain JSONata
 * (`$lookup(signals, "Vehicle.Speed").value`). Documented in mappings/README.md.
 */

/** The signals of one instant, by path. */
export interface Snapshot {
  /** The instant in ISO 8601 UTC, or undefined when the signals' `ts` is unusable. */
  timestamp: string | undefined;
  signals: Record<string, Record<string, unknown>>;
}

/**
 * `$snapshots(signals)`: a list of `{path, value, unit, ts}` grouped by instant, oldest first:
 * `[{"timestamp": "2026-11-25T10:00:00.000Z", "signals": {"Vehicle.Speed": {path, value, unit, ts}}}]`.
 * Two spellings of one instant (`...Z`, `+01:00`, epoch seconds) are one snapshot. A signal
 * whose `ts` is unusable (no zone, not a time) lands in a snapshot without `timestamp`, so the
 * items built from it fail schema validation visibly instead of being stored at a guessed time.
 * Entries without a string `path` are skipped; a path twice at one instant keeps the first, as
 * the store keeps the first point of a VIN, item and time.
 */
export function snapshots(list: unknown): Snapshot[] | undefined {
  if (list === undefined) return undefined;
  const byTime = new Map<string, Snapshot>();
  for (const entry of Array.isArray(list) ? list : [list]) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as { path?: unknown }).path !== 'string') continue;
    const signal = entry as Record<string, unknown> & { path: string };
    const timestamp = isoTime(signal.ts);
    const key = timestamp ?? `unusable:${JSON.stringify(signal.ts) ?? 'none'}`;
    let snapshot = byTime.get(key);
    if (!snapshot) byTime.set(key, (snapshot = { timestamp, signals: {} }));
    if (!Object.hasOwn(snapshot.signals, signal.path)) snapshot.signals[signal.path] = signal;
  }
  // Usable instants in time order (ISO UTC strings sort as time), the unusable ones after them.
  const order = (s: Snapshot) => s.timestamp ?? '\uffff';
  return [...byTime.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Units of a percentage: as given (percent) or a fraction of 1 (ratio). */
const PERCENT: Record<string, number> = { percent: 1, '%': 1, pct: 1, PERCENTAGE: 1, ratio: 100 };

/** `$percentage(value, unit)`: a percentage in the catalog's PERCENTAGE; undefined for another unit. */
export function percentage(value: number, unit: string): number | undefined {
  const factor = PERCENT[unit];
  if (factor === undefined) return undefined;
  // 0.57 × 100 is 56.99999999999999 in binary floating point: round that noise away.
  return factor === 1 ? value : Math.round(value * factor * 1e9) / 1e9;
}
