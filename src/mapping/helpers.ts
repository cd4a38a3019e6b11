/**
 * The helper functions every mapping may call, bound once at compile time (as Node-RED's
 * prepareJSONataExpression does). Kept small on purpose: unit conversion, time
 * normalisation and grouping a signal list by time, which JSONata cannot do cleanly on its own. Documented in mappings/README.md.
 */

import { isoTime } from './iso-time.ts';
import { percentage, snapshots } from './signals.ts';

export { isoTime };

/** One helper: its implementation and its JSONata signature (checked by JSONata on each call). */
export interface Helper {
  // JSONata checks the arguments against `signature` before the call, so the parameters are typed there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  impl: (...args: any[]) => unknown;
  signature: string;
}

const round = (n: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

const DISTANCE: Record<string, number> = { km: 1, m: 0.001, mi: 1.609344, ft: 0.0003048 };
const SPEED: Record<string, number> = { 'km/h': 1, kmh: 1, mph: 1.609344, 'm/s': 3.6, kn: 1.852 };

function convert(table: Record<string, number>, value: number, from: string, to: string): number | undefined {
  const a = table[from];
  const b = table[to];
  if (a === undefined || b === undefined) return undefined;
  return (value * a) / b;
}

/** Vehicle Signal Specification spells the units out. */
const TEMPERATURE_ALIASES: Record<string, string> = { celsius: 'C', fahrenheit: 'F', kelvin: 'K' };

function temperature(value: number, fromUnit: string, toUnit: string): number | undefined {
  const from = TEMPERATURE_ALIASES[fromUnit] ?? fromUnit;
  const to = TEMPERATURE_ALIASES[toUnit] ?? toUnit;
  const toC: Record<string, (v: number) => number> = { C: (v) => v, F: (v) => ((v - 32) * 5) / 9, K: (v) => v - 273.15 };
  const fromC: Record<string, (v: number) => number> = { C: (v) => v, F: (v) => (v * 9) / 5 + 32, K: (v) => v + 273.15 };
  const f = toC[from];
  const t = fromC[to];
  return f && t ? t(f(value)) : undefined;
}

/**
 * Named so that none hides a JSONata built-in function (`$length`, `$round`, `$now`, ...): a
 * registered helper replaces the built-in of the same name in every mapping (test/mapping).
 */
export const HELPERS: Record<string, Helper> = {
  /** $isoTime(epochSecondsOrMillisOrString) → "2026-11-25T02:30:00.000Z" */
  isoTime: { impl: isoTime as Helper['impl'], signature: '<(sn)?:s>' },
  /** $distance(value, fromUnit, toUnit) with units km, m, mi, ft */
  distance: { impl: ((v: number, f: string, t: string) => convert(DISTANCE, v, f, t)) as Helper['impl'], signature: '<n-ss:n>' },
  /** $speed(value, fromUnit, toUnit) with units km/h, kmh, mph, m/s, kn */
  speed: { impl: ((v: number, f: string, t: string) => convert(SPEED, v, f, t)) as Helper['impl'], signature: '<n-ss:n>' },
  /** $temperature(value, fromUnit, toUnit) with units C, F, K (or celsius, fahrenheit, kelvin) */
  temperature: { impl: temperature as Helper['impl'], signature: '<n-ss:n>' },
  /** $roundTo(value, digits): half away from zero is not needed for telemetry; Math.round is. */
  roundTo: { impl: ((v: number, d: number) => round(v, d)) as Helper['impl'], signature: '<n-n:n>' },
  /** $percentage(value, unit) with units percent, %, pct, PERCENTAGE (as is) and ratio (× 100) */
  percentage: { impl: percentage as Helper['impl'], signature: '<n-s:n>' },
  /** $snapshots(signals): a flat list of {path, value, unit, ts} grouped by instant (./signals.ts) */
  snapshots: { impl: snapshots as Helper['impl'], signature: '<j?:a>' },
};
