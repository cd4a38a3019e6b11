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
 * The date strings accepted: ISO 8601 date and time with its zone, `Z` or a ±hh:mm offset.
 * Without a zone Date.parse reads the time in the server's local time zone (TZ=America/New_York
 * made 10:00 into 15:00Z), and for other forms V8 falls back to a lenient parser that may do the
 * same even when an offset is present ("Nov 25 2026-05:00"), so the same message would be stored
 * at another instant on another server.
 */
const ZONED_DATE_TIME = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:\d\d)$/;

/** V8 rolls an impossible day over ("2026-02-30" becomes 2 March) instead of refusing it. */
function isCalendarDate(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/**
 * Normalises a time to ISO 8601 UTC with milliseconds. Numbers are epoch seconds when below
 * 1e11 (until the year 5138) and epoch milliseconds otherwise; strings must be ISO 8601 date-times
 * with `Z` or a ±hh:mm offset. Returns undefined for anything else (a time without a zone
 * included), so a broken or ambiguous timestamp fails schema validation visibly.
 */
export function isoTime(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value)) ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string' && ZONED_DATE_TIME.test(value) && isCalendarDate(value)) ms = Date.parse(value);
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const DISTANCE: Record<string, number> = { km: 1, m: 0.001, mi: 1.609344, ft: 0.0003048 };
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
  /** $temperature(value, fromUnit, toUnit) with units C, F, K */
  temperature: { impl: temperature as Helper['impl'], signature: '<n-ss:n>' },
  /** $roundTo(value, digits): half away from zero is not needed for telemetry; Math.round is. */
  roundTo: { impl: ((v: number, d: number) => round(v, d)) as Helper['impl'], signature: '<n-n:n>' },
};
