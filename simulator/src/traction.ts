import { CHARGING, PLUGGED, type Stop } from './day-profile.ts';
import { kmAt, odometerAt } from './kinematics.ts';
import { round } from './noise.ts';
import type { ChargingSession, TelemetrySignals } from './raw-format.ts';
import { positionAt } from './routes.ts';
import { DAY_MINUTES, gridInstant, type GridPoint } from './time-grid.ts';
import type { Vehicle } from './vehicle.ts';

type Traction = NonNullable<TelemetrySignals['traction']>;

/** How many completed charging sessions the history carries. */
const HISTORY = 3;

/** The high-voltage battery and charging state of an electric vehicle at a grid minute. */
export function traction(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): Traction {
  const p = v.profile;
  const k = g.minuteOfDay;
  const activity = p.activity[k]!;
  const last = lastStopStarted(v, g.day, k);
  const dc = last.stop.entry.method === 'DIRECT';
  const charging = activity === CHARGING;
  const plugged = charging || activity === PLUGGED;
  return {
    socPct: round(p.level[k]!, 2),
    managementStatus: 'OK',
    auxConsumptionKwh: round(0.1 + 0.015 * p.drivenMinutes[k]!, 2),
    charging: {
      status: charging ? 'ACTIVE' : plugged ? 'FINISHED' : 'NOTCHARGING',
      method: plugged ? (dc ? 'DIRECT' : 'ALTERNATING') : 'NOTCHARGING',
      plug: plugged ? 'CONNECTED' : 'DISCONNECTED',
      window: last.stop.entry.windowSelected ? 'SELECTED' : 'NOTSELECTED',
      lastVoltageV: last.stop.entry.voltageV ?? (dc ? 400 : 230),
      lastMaxCurrentA: last.stop.entry.maxCurrentA ?? (dc ? 200 : 32),
    },
    sessions: sessions(v, g, utcOffsetMinutes),
  };
}

/** The latest stop that began at or before minute k of `day` (looking into earlier days). */
function lastStopStarted(v: Vehicle, day: number, k: number): { stop: Stop; day: number } {
  const stops = v.profile.stops;
  for (let i = stops.length - 1; i >= 0; i--) if (stops[i]!.start <= k) return { stop: stops[i]!, day };
  return { stop: stops[stops.length - 1]!, day: day - 1 };
}

/** The last completed charging sessions before the grid minute, oldest first. */
function sessions(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): ChargingSession[] {
  const stops = v.profile.stops;
  const out: ChargingSession[] = [];
  for (let day = g.day; day >= g.day - 7 && out.length < HISTORY; day--) {
    for (let i = stops.length - 1; i >= 0 && out.length < HISTORY; i--) {
      const stop = stops[i]!;
      if (day === g.day && stop.end > g.minuteOfDay) continue;
      out.push(session(v, stop, day, utcOffsetMinutes));
    }
  }
  return out.reverse();
}

function session(v: Vehicle, stop: Stop, day: number, utcOffsetMinutes: number): ChargingSession {
  const startPoint: GridPoint = { day, minuteOfDay: stop.start, minute: day * DAY_MINUTES + stop.start };
  const target = stop.entry.targetPct!;
  const energyKwh = round(((target - stop.startPct) / 100) * v.scenario.energy.capacity, 1);
  const place = stop.entry.station ?? (() => {
    const at = positionAt(v.route, v.routeOffsetKm + kmAt(v, startPoint, utcOffsetMinutes));
    return { city: at.city, street: at.place };
  })();
  return {
    start: gridInstant(startPoint.minute, utcOffsetMinutes).toISOString(),
    end: gridInstant(day * DAY_MINUTES + stop.end, utcOffsetMinutes).toISOString(),
    startSocPct: round(stop.startPct, 1),
    endSocPct: target,
    energyKwh,
    odometerKm: round(odometerAt(v, startPoint, utcOffsetMinutes), 1),
    costEur: round(energyKwh * (stop.entry.method === 'DIRECT' ? 0.59 : 0.39), 2),
    city: place.city,
    street: place.street,
  };
}
