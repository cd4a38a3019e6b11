/**
 * The helper functions every mapping may call, bound once at compile time (as Node-RED's
 * prepareJSONataExpression does). Kept small on purpose: unit conversion and time
 * normalisation, which JSONata cannot do cleanly on its own. Documented in mappings/README.md.
 */

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

/**
 * Normalises a time to ISO 8601 UTC with milliseconds. Numbers are epoch seconds when below
 * 1e11 (until the year 5138) and epoch milliseconds otherwise; strings must parse as dates.
 * Returns undefined for anything else, so a broken timestamp fails schema validation visibly.
 */
export function isoTime(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value)) ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string' && value.trim() !== '') ms = Date.parse(value);
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const LENGTH: Record<string, number> = { km: 1, m: 0.001, mi: 1.609344, ft: 0.0003048 };
const SPEED: Record<string, number> = { 'km/h': 1, kmh: 1, mph: 1.609344, 'm/s': 3.6, kn: 1.852 };

function convert(table: Record<string, number>, value: number, from: string, to: string): number | undefined {
  const a = table[from];
  const b = table[to];
  if (a === undefined || b === undefined) return undefined;
  return (value * a) / b;
}

function temperature(value: number, from: string, to: string): number | undefined {
  const toC: Record<string, (v: number) => number> = { C: (v) => v, F: (v) => ((v - 32) * 5) / 9, K: (v) => v - 273.15 };
  const fromC: Record<string, (v: number) => number> = { C: (v) => v, F: (v) => (v * 9) / 5 + 32, K: (v) => v + 273.15 };
  const f = toC[from];
  const t = fromC[to];
  return f && t ? t(f(value)) : undefined;
}

export const HELPERS: Record<string, Helper> = {
  /** $isoTime(epochSecondsOrMillisOrString) → "2026-11-25T02:30:00.000Z" */
  isoTime: { impl: isoTime as Helper['impl'], signature: '<(sn)?:s>' },
  /** $length(value, fromUnit, toUnit) with units km, m, mi, ft */
  length: { impl: ((v: number, f: string, t: string) => convert(LENGTH, v, f, t)) as Helper['impl'], signature: '<n-ss:n>' },
  /** $speed(value, fromUnit, toUnit) with units km/h, kmh, mph, m/s, kn */
  speed: { impl: ((v: number, f: string, t: string) => convert(SPEED, v, f, t)) as Helper['impl'], signature: '<n-ss:n>' },
  /** $temperature(value, fromUnit, toUnit) with units C, F, K */
  temperature: { impl: temperature as Helper['impl'], signature: '<n-ss:n>' },
  /** $roundTo(value, digits): half away from zero is not needed for telemetry; Math.round is. */
  roundTo: { impl: ((v: number, d: number) => round(v, d)) as Helper['impl'], signature: '<n-n:n>' },
};
