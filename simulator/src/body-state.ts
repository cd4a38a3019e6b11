import { DRIVING, REFUELLING } from './day-profile.ts';
import { noise } from './noise.ts';
import type { BodyState, Position } from './raw-format.ts';
import type { GridPoint } from './time-grid.ts';
import type { Vehicle } from './vehicle.ts';

/*
 * Doors, locks, windows and lids, from how long the vehicle has stood (profile.parkedFor):
 * nothing opens while driving (the doors lock as it drives off); in the first minutes of a
 * stop the driver gets out (front left door), on some stops a passenger too and the trunk
 * opens; after five minutes the vehicle is locked, after an hour double-locked. Which stop has
 * a passenger or a trunk opening is seeded by the VIN and the stop's first minute.
 */

const CH_PASSENGER = 41;
const CH_REAR = 42;
const CH_TRUNK = 43;
/** Front windows are ajar (this % open) while driving when the air is at least WARM_C. */
const AJAR_PCT = 30;
const WARM_C = 15;
const closed = { open: false };

export function bodyState(v: Vehicle, g: GridPoint, outsideC: number): BodyState {
  const activity = v.profile.activity[g.minuteOfDay];
  const driving = activity === DRIVING;
  const stood = v.profile.parkedFor[g.minuteOfDay]!;
  const stopStart = g.minute - stood + 1;
  const chance = (channel: number) => noise(v.seed, stopStart, channel);
  const central = driving ? 'LOCKED' : stood <= 5 ? 'UNLOCKED' : stood < 60 ? 'LOCKED' : 'DOUBLE_LOCKED';
  const locked = central !== 'UNLOCKED';
  const open: Record<Position, boolean> = {
    frontLeft: !driving && stood <= 2,
    frontRight: !driving && stood <= 2 && chance(CH_PASSENGER) < 0.5,
    rearLeft: !driving && stood >= 2 && stood <= 3 && chance(CH_REAR) < 0.25,
    rearRight: false,
  };
  const door = (p: Position) => (open[p] ? { open: true, locked: false } : { ...closed, locked });
  const front = driving && outsideC >= WARM_C ? AJAR_PCT : 0;
  const body: BodyState = {
    central,
    doors: { frontLeft: door('frontLeft'), frontRight: door('frontRight'), rearLeft: door('rearLeft'), rearRight: door('rearRight') },
    windowsPct: { frontLeft: front, frontRight: front, rearLeft: 0, rearRight: 0 },
    trunkOpen: !driving && stood >= 2 && stood <= 4 && chance(CH_TRUNK) < 0.5,
    hood: { open: false, locked: true },
  };
  // The filler flap opens for refuelling only; electric vehicles have none.
  if (v.groups.has('fuel')) body.fuelFlapLocked = activity !== REFUELLING;
  return body;
}
