import { isoText } from '../domain/iso-text.ts';
import { rememberLast } from '../domain/remember-last.ts';

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
  return typeof value === 'string' || typeof value === 'number' ? timeOf(value) : undefined;
}

const timeOf = rememberLast((value: string | number): string | undefined => {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value)) ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string' && ZONED_DATE_TIME.test(value) && isCalendarDate(value)) ms = Date.parse(value);
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  return isoText(ms) ?? undefined;
});
