import { DRIVING } from './day-profile.ts';
import { round, signedNoise } from './noise.ts';
import { positionAt, type RoutePosition } from './routes.ts';
import { DAY_MINUTES, gridPoint, type GridPoint } from './time-grid.ts';
import type { Vehicle } from './vehicle.ts';

/**
 * Where a vehicle is and how it moves at a grid minute, in closed form: distance is whole days
 * of the day profile plus the profile's prefix sum, so mileage only rises while driving and
 * position is the route point at that distance.
 */
export interface Kinematics {
  driving: boolean;
  speedKmh: number;
  /** km driven since the start of the odometer epoch's day (negative before it). */
  km: number;
  odometerKm: number;
  position: RoutePosition;
  accel: { longitudinal: number; lateral: number; vertical: number };
}

const CH_ACCEL_X = 11;
const CH_ACCEL_Y = 12;
const CH_ACCEL_Z = 13;

export function kmAt(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): number {
  const epochDay = gridPoint(v.odometerEpochMs, utcOffsetMinutes).day;
  return (g.day - epochDay) * v.profile.dailyKm + v.profile.dist[g.minuteOfDay]!;
}

export function odometerAt(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): number {
  return Math.max(0, v.odometerStartKm + kmAt(v, g, utcOffsetMinutes));
}

export function kinematics(v: Vehicle, g: GridPoint, utcOffsetMinutes: number): Kinematics {
  const p = v.profile;
  const k = g.minuteOfDay;
  const km = kmAt(v, g, utcOffsetMinutes);
  const driving = p.activity[k] === DRIVING;
  const speed = p.speed[k]!;
  // Mean longitudinal acceleration over the surrounding two minutes, plus road jitter.
  const before = p.speed[(k + DAY_MINUTES - 1) % DAY_MINUTES]!;
  const after = p.speed[k + 1]!;
  const trend = (after - before) / 3.6 / 120;
  const accel = driving
    ? {
        longitudinal: round(trend + 0.5 * signedNoise(v.seed, g.minute, CH_ACCEL_X), 2),
        lateral: round(0.4 * signedNoise(v.seed, g.minute, CH_ACCEL_Y), 2),
        vertical: round(0.08 * signedNoise(v.seed, g.minute, CH_ACCEL_Z), 2),
      }
    : { longitudinal: 0, lateral: 0, vertical: 0 };
  return {
    driving,
    speedKmh: round(speed, 1),
    km,
    odometerKm: round(Math.max(0, v.odometerStartKm + km), 3),
    position: positionAt(v.route, v.routeOffsetKm + km),
    accel,
  };
}
