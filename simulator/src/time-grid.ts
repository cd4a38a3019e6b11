/**
 * The simulated time grid: minutes since the Unix epoch in the simulator's zone, split into a
 * day number and a minute of the day. Every behaviour repeats daily, so a vehicle's state is
 * a function of (day, minute of day).
 */

export const MINUTE_MS = 60_000;
export const DAY_MINUTES = 1440;

export interface GridPoint {
  /** Whole minutes since 1970-01-01T00:00 in the simulator's zone. */
  minute: number;
  /** Days since 1970-01-01 in the simulator's zone. */
  day: number;
  /** 0..1439. */
  minuteOfDay: number;
}

/** The grid minute containing `instant` (floored), with `utcOffsetMinutes` shifting the day. */
export function gridPoint(instant: Date | number, utcOffsetMinutes: number): GridPoint {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const minute = Math.floor(ms / MINUTE_MS) + utcOffsetMinutes;
  const day = Math.floor(minute / DAY_MINUTES);
  return { minute, day, minuteOfDay: minute - day * DAY_MINUTES };
}

/** The UTC instant of a grid minute. */
export function gridInstant(minute: number, utcOffsetMinutes: number): Date {
  return new Date((minute - utcOffsetMinutes) * MINUTE_MS);
}

/** "HH:MM" (00:00 to 24:00) → minute of the day. */
export function parseTimeOfDay(text: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a time of day (HH:MM)`);
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  if (minutes > DAY_MINUTES || Number(m[2]) > 59) throw new Error(`"${text}" is not a time of day (HH:MM)`);
  return minutes;
}

/** "15m" / "2h" → minutes. */
export function parsePeriod(text: string): number {
  const m = /^([1-9]\d*)([mh])$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a period such as 15m or 2h`);
  return Number(m[1]) * (m[2] === 'h' ? 60 : 1);
}

/**
 * Start minutes of a daily repeating occurrence: `first`, then every `every` minutes while
 * before `until` (default end of day). Without `every`, only `first`.
 */
export function dailyStarts(first: number, every: number | undefined, until = DAY_MINUTES): number[] {
  if (every === undefined) return [first];
  const out: number[] = [];
  for (let m = first; m < until; m += every) out.push(m);
  return out;
}
