import { ambientC, DRIVING } from './day-profile.ts';
import { noise, round, signedNoise } from './noise.ts';
import type { TelemetrySignals } from './raw-format.ts';
import { DAY_MINUTES, type GridPoint } from './time-grid.ts';
import type { Vehicle } from './vehicle.ts';

/*
 * The slower-moving signals every drive type has: 12 V system, brakes, service and
 * check-control messages, trip averages, diesel after-treatment, convertible top, outside air. Wear
 * follows the odometer, ageing follows time, so all of them are pure functions of the minute.
 */

const CH_MAIN_V = 21;
const CH_ACC_V = 22;
const CH_BACKUP_V = 23;
const CH_LV_SOC = 24;
const CH_TYRE = 25;

export function lowVoltage(v: Vehicle, g: GridPoint): NonNullable<TelemetrySignals['lowVoltage']> {
  const driving = v.profile.activity[g.minuteOfDay] === DRIVING;
  const rest = Math.min(1, v.profile.sinceChange[g.minuteOfDay]! / 600);
  // The alternator (or DC/DC converter) lifts the 12 V net while driving; parked it sags slowly.
  const mainV = driving ? 14.2 + 0.15 * signedNoise(v.seed, g.minute, CH_MAIN_V) : 12.7 - 0.2 * rest + 0.05 * signedNoise(v.seed, g.minute, CH_MAIN_V);
  return {
    mainV: round(mainV, 2),
    accessoryV: round(mainV - 0.1 + 0.03 * signedNoise(v.seed, g.minute, CH_ACC_V), 2),
    backupV: round(12.4 + 0.05 * signedNoise(v.seed, g.minute, CH_BACKUP_V), 2),
    socPct: round(driving ? 90 + 3 * signedNoise(v.seed, g.minute, CH_LV_SOC) : 85 - 10 * rest + signedNoise(v.seed, g.minute, CH_LV_SOC), 1),
    deepSleep: !driving && v.profile.sinceChange[g.minuteOfDay]! >= 60 ? 'ON' : 'OFF',
  };
}

export function brakes(odometerKm: number, ageDays: number): NonNullable<TelemetrySignals['brakes']> {
  return {
    padLifePct: round(100 - 85 * ((odometerKm % 60000) / 60000), 1),
    fluidLifePct: round(100 - 90 * ((((ageDays % 730) + 730) % 730) / 730), 1),
    serviceDueKm: Math.round(30000 - (odometerKm % 30000)),
  };
}

export function serviceMessages(v: Vehicle, odometerKm: number, g: GridPoint, ageDays: number): NonNullable<TelemetrySignals['serviceMessages']> {
  const dayMs = 86_400_000;
  const today = g.day * dayMs;
  const kmToService = 20000 - (odometerKm % 20000);
  const daysToService = Math.ceil(kmToService / Math.max(1, v.profile.dailyKm));
  const fluidDays = 730 - (((ageDays % 730) + 730) % 730);
  const service =
    v.powertrain === 'ELECTRIC'
      ? { id: 3, name: 'VEHICLE_CHECK', description: 'Vehicle inspection' }
      : { id: 1, name: 'OIL', description: 'Engine oil change' };
  return [
    {
      ...service,
      status: kmToService < 2000 ? 'PENDING' : 'OK',
      dueDate: new Date(today + daysToService * dayMs).toISOString(),
      remaining: Math.round(kmToService),
    },
    {
      id: 2,
      name: 'BRAKE_FLUID',
      description: 'Brake fluid change',
      status: fluidDays < 60 ? 'PENDING' : 'OK',
      dueDate: new Date(today + Math.ceil(fluidDays) * dayMs).toISOString(),
      remaining: Math.ceil(fluidDays),
    },
  ];
}

/** The distance to the next service (the oil change, or an electric vehicle's inspection). */
export function nextService(odometerKm: number): NonNullable<TelemetrySignals['service']> {
  return { nextDistanceKm: Math.round(20000 - (odometerKm % 20000)) };
}

/**
 * Check-control messages with a severity and a numeric code: a tyre-pressure warning on about
 * one day in four (per VIN), worn brake pads, AdBlue low, and the faults behind the trouble
 * codes (a crash's restraint system, a leaking tank).
 */
export function checkControl(
  v: Vehicle,
  g: GridPoint,
  state: { padLifePct?: number; dieselFluidPct?: number; codes?: readonly { code: string }[] },
): NonNullable<TelemetrySignals['checkControl']> {
  const out: NonNullable<TelemetrySignals['checkControl']> = [];
  const has = (code: string) => state.codes?.some((c) => c.code === code) ?? false;
  if (has('B0001')) out.push({ id: 10, text: 'Restraint system fault', status: 'CRITICAL', value: 10 });
  if (has('P0455')) out.push({ id: 60, text: 'Fuel system leak', status: 'CRITICAL', value: 600 });
  if (state.padLifePct !== undefined && state.padLifePct < 20) out.push({ id: 20, text: 'Brake Pad Alert', status: 'CRITICAL', value: 200 });
  if (noise(v.seed, g.day, CH_TYRE) < 0.25) out.push({ id: 12, text: 'Tyre pressure low', status: 'WARNING', value: 250 });
  if (state.dieselFluidPct !== undefined && state.dieselFluidPct < 15) out.push({ id: 31, text: 'AdBlue level low', status: 'WARNING', value: 500 });
  return out;
}

export function diesel(odometerKm: number, speedKmh: number): NonNullable<TelemetrySignals['diesel']> {
  // AdBlue: 18 l tank, about 1.2 l per 1000 km, topped up every 12,000 km.
  const fluidPct = 100 - 90 * ((odometerKm % 12000) / 12000);
  return {
    exhaustFluidPct: round(fluidPct, 1),
    exhaustFluidRangeKm: Math.round(fluidPct * 150),
    // The particulate filter reaches its limit in the last 40 km of every 800 km (then regenerates).
    particulateFilter: odometerKm % 800 > 760 ? 'AT_LIMIT' : 'NORMAL_OPERATION',
    offboardRegeneration: 'NORMAL_OPERATION',
    // The boost-pressure regulator works at its limit above 100 km/h.
    overboostRegulator: speedKmh > 100 ? 'OVERLOADED' : 'NORMAL_OPERATION',
  };
}

export function trips(v: Vehicle): NonNullable<TelemetrySignals['trips']> {
  return { avgWeeklyKm: Math.round(v.profile.dailyKm * 7), avgDailyKm: round(v.profile.dailyKm, 1) };
}

/** The top is open while driving between 10:00 and 18:00 and locked when parked. */
export function roof(v: Vehicle, g: GridPoint): NonNullable<TelemetrySignals['roof']> {
  const driving = v.profile.activity[g.minuteOfDay] === DRIVING;
  const open = driving && g.minuteOfDay >= 600 && g.minuteOfDay < 1080;
  return { positionPct: open ? 100 : 0, status: open ? 'OPENED' : driving ? 'CLOSED' : 'LOCKED' };
}

const CH_OUTSIDE = 26;

/** Outside air: the daily curve (coldest at 03:00, warmest at 15:00) with a little jitter. */
export function environment(v: Vehicle, g: GridPoint): NonNullable<TelemetrySignals['environment']> {
  return { outsideC: round(ambientC(g.minuteOfDay) + 0.4 * signedNoise(v.seed, g.minute, CH_OUTSIDE), 1) };
}

export const ageDays = (v: Vehicle, g: GridPoint): number => (g.minute * 60_000 - v.odometerEpochMs) / (DAY_MINUTES * 60_000);
