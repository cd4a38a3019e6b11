import type { TroubleCode } from './raw-format.ts';
import { DAY_MINUTES, gridInstant, type GridPoint } from './time-grid.ts';
import type { DailyEvent, Vehicle } from './vehicle.ts';

/*
 * Diagnostic trouble codes, a pure function of the vehicle and the minute. Only two kinds of
 * vehicle have any: a vehicle that crashes (its airbag control unit stores the crash) and one
 * whose tank leaks (the engine control unit's evaporative system check finds the leak).
 */

/** The last crash at or before the grid minute (crashes repeat daily, so yesterday's counts). */
export function lastCrash(v: Vehicle, g: GridPoint): { event: DailyEvent; minute: number } | undefined {
  const crashes = v.events.filter((e) => e.entry.type === 'CRASH');
  if (crashes.length === 0) return undefined;
  const today = crashes.filter((e) => e.minuteOfDay <= g.minuteOfDay).at(-1);
  const event = today ?? crashes.at(-1)!;
  const minute = g.day * DAY_MINUTES + event.minuteOfDay - (today ? 0 : DAY_MINUTES);
  return { event, minute };
}

export function troubleCodes(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): TroubleCode[] {
  const codes: TroubleCode[] = [];
  const crash = lastCrash(v, g);
  if (crash && crash.event.entry.type === 'CRASH') {
    // Every daily crash happened once in the last 24 hours.
    const count = v.events.filter((e) => e.entry.type === 'CRASH').length;
    const at = gridInstant(crash.minute, utcOffsetMinutes).toISOString();
    // B0001: crash recorded by the airbag control module (ACSM); confirmed when it recurred
    // or the crash was severe enough to deploy restraints.
    codes.push({ code: 'B0001', ecu: 'ACSM', count, firstSeen: at, confirmed: count >= 2 || crash.event.entry.severity >= 3 });
    if (crash.event.entry.rollover) codes.push({ code: 'B0052', ecu: 'ACSM', count: 1, firstSeen: at, confirmed: true });
  }
  if ((v.scenario.energy.drainPctPerHour ?? 0) > 0) {
    // P0455: evaporative emission system, large leak; found again every day after refuelling.
    codes.push({ code: 'P0455', ecu: 'DME', count: 1, firstSeen: gridInstant(g.day * DAY_MINUTES, utcOffsetMinutes).toISOString(), confirmed: true });
  }
  return codes;
}
