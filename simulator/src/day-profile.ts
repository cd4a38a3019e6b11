import { noise, seedOf, signedNoise } from './noise.ts';
import type { ScenarioFile, ScheduleEntry } from './scenario-types.ts';
import { DAY_MINUTES, dailyStarts, parsePeriod, parseTimeOfDay } from './time-grid.ts';

/** What a vehicle does in a minute of its day. */
export const PARKED = 0;
export const DRIVING = 1;
export const REFUELLING = 2;
export const CHARGING = 3;
/** Parked, still plugged in after a charging stop. */
export const PLUGGED = 4;

/** One refuelling or charging stop in the day: the level rises linearly to its target. */
export interface Stop {
  start: number;
  end: number;
  entry: ScheduleEntry;
  /** Level when the stop begins. */
  startPct: number;
}

/**
 * A scenario's day, minute by minute, computed once: every behaviour repeats daily, so a
 * vehicle's state at any instant is this table plus whole days of distance. Integrals
 * (distance, energy) are prefix sums here, which makes mileage and levels closed-form
 * functions of time. Vehicles cloned from one scenario share its table.
 */
export interface DayProfile {
  activity: Uint8Array;
  /** Speed in km/h at each minute (index 1440 = next day's minute 0). */
  speed: Float64Array;
  /** km driven from the day's start up to each minute (index 1440 = the whole day). */
  dist: Float64Array;
  dailyKm: number;
  /** Fuel or charge level in % at each minute (index 1440 equals index 0). */
  level: Float64Array;
  coolant: Float64Array;
  /** Minutes since the current activity began. */
  sinceChange: Uint16Array;
  /** Minutes since the vehicle last drove (0 while driving): how long it has stood. */
  parkedFor: Uint16Array;
  /** Minutes of driving since the day's start. */
  drivenMinutes: Uint16Array;
  stops: Stop[];
}

/** A scenario that cannot run: the message says what is wrong (the loader adds the file). */
export class ScenarioRuleError extends Error {}

const CHANNEL_SPEED = 1;

export function buildDayProfile(s: ScenarioFile): DayProfile {
  const activity = new Uint8Array(DAY_MINUTES);
  const cruise = new Float64Array(DAY_MINUTES);
  const stops: Stop[] = [];
  const replenish = s.powertrain === 'ELECTRIC' ? 'charge' : 'refuel';
  for (const entry of s.schedule) {
    const from = parseTimeOfDay(entry.from);
    const to = parseTimeOfDay(entry.to);
    if (to <= from) throw new ScenarioRuleError(`schedule ${entry.activity} ${entry.from}-${entry.to}: "to" must be after "from" (no window crosses midnight)`);
    if (entry.activity !== 'drive' && entry.activity !== replenish) {
      throw new ScenarioRuleError(`schedule ${entry.activity} ${entry.from}: a ${s.powertrain} vehicle replenishes by "${replenish}"`);
    }
    if (entry.activity !== 'drive' && entry.targetPct === undefined) throw new ScenarioRuleError(`schedule ${entry.activity} ${entry.from}: needs targetPct`);
    const every = entry.every === undefined ? undefined : parsePeriod(entry.every);
    const until = entry.until === undefined ? DAY_MINUTES : parseTimeOfDay(entry.until);
    for (const start of dailyStarts(from, every, until)) {
      const end = start + (to - from);
      if (end > DAY_MINUTES) throw new ScenarioRuleError(`schedule ${entry.activity} from ${entry.from} every ${entry.every}: an occurrence crosses midnight`);
      for (let k = start; k < end; k++) {
        if (activity[k] !== PARKED) throw new ScenarioRuleError(`schedule ${entry.activity} ${entry.from}-${entry.to}: overlaps another window at minute ${k} of the day`);
        activity[k] = entry.activity === 'drive' ? DRIVING : entry.activity === 'refuel' ? REFUELLING : CHARGING;
        cruise[k] = entry.cruiseKmh ?? s.driving.cruiseKmh;
      }
      if (entry.activity !== 'drive') stops.push({ start, end, entry, startPct: 0 });
    }
  }
  stops.sort((a, b) => a.start - b.start);
  markPlugged(activity);
  const speed = speeds(s, activity, cruise);
  const dist = new Float64Array(DAY_MINUTES + 1);
  for (let k = 0; k < DAY_MINUTES; k++) dist[k + 1] = dist[k]! + (speed[k]! + speed[k + 1]!) / 120; // trapezoid, km
  const profile: DayProfile = {
    activity,
    speed,
    dist,
    dailyKm: dist[DAY_MINUTES]!,
    level: new Float64Array(DAY_MINUTES + 1),
    coolant: new Float64Array(DAY_MINUTES + 1),
    sinceChange: sinceChange(activity),
    parkedFor: parkedFor(activity),
    drivenMinutes: drivenMinutes(activity),
    stops,
  };
  fillLevel(s, profile);
  fillCoolant(s, profile);
  return profile;
}

/** Speed: cruise with smooth and jittery variation, ramped up and down over three minutes. */
function speeds(s: ScenarioFile, activity: Uint8Array, cruise: Float64Array): Float64Array {
  const seed = seedOf(s.seed ?? s.vin);
  const phase = noise(seed, 0, 99) * 2 * Math.PI;
  const variation = (s.driving.variationPct ?? 15) / 100;
  const speed = new Float64Array(DAY_MINUTES + 1);
  for (let k = 0; k < DAY_MINUTES; k++) {
    if (activity[k] !== DRIVING) continue;
    let runStart = k;
    while (runStart > 0 && activity[runStart - 1] === DRIVING) runStart--;
    let runEnd = k + 1;
    while (runEnd < DAY_MINUTES && activity[runEnd] === DRIVING) runEnd++;
    const ramp = Math.min(1, (k - runStart + 1) / 3, (runEnd - k) / 3);
    const wobble = 0.6 * Math.sin((2 * Math.PI * k) / 23 + phase) + 0.4 * signedNoise(seed, k, CHANNEL_SPEED);
    const max = s.driving.maxKmh ?? cruise[k]! * 1.6;
    speed[k] = Math.max(3, Math.min(max, cruise[k]! * ramp * (1 + variation * wobble)));
  }
  speed[DAY_MINUTES] = speed[0]!;
  return speed;
}

/** After a charging stop the car stays plugged in until it next drives (wrapping past midnight). */
function markPlugged(activity: Uint8Array): void {
  let plugged = false;
  for (let i = 0; i < 2 * DAY_MINUTES; i++) {
    const k = i % DAY_MINUTES;
    const a = activity[k]!;
    if (a === CHARGING) plugged = true;
    else if (a === DRIVING || a === REFUELLING) plugged = false;
    else if (plugged) activity[k] = PLUGGED;
  }
}

function sinceChange(activity: Uint8Array): Uint16Array {
  const out = new Uint16Array(DAY_MINUTES);
  const kind = (a: number) => (a === PLUGGED ? PARKED : a);
  let run = 0;
  for (let i = 0; i < 2 * DAY_MINUTES; i++) {
    const k = i % DAY_MINUTES;
    const prev = activity[(k + DAY_MINUTES - 1) % DAY_MINUTES]!;
    run = kind(prev) === kind(activity[k]!) ? Math.min(run + 1, 65535) : 0;
    out[k] = run;
  }
  return out;
}

function parkedFor(activity: Uint8Array): Uint16Array {
  const out = new Uint16Array(DAY_MINUTES);
  let run = 0;
  // Two passes, so the minutes after midnight count the stand that began the evening before.
  for (let i = 0; i < 2 * DAY_MINUTES; i++) {
    const k = i % DAY_MINUTES;
    run = activity[k] === DRIVING ? 0 : Math.min(run + 1, 65535);
    out[k] = run;
  }
  return out;
}

function drivenMinutes(activity: Uint8Array): Uint16Array {
  const out = new Uint16Array(DAY_MINUTES + 1);
  for (let k = 0; k < DAY_MINUTES; k++) out[k + 1] = out[k]! + (activity[k] === DRIVING ? 1 : 0);
  return out;
}

/**
 * Level: falls with distance (consumption) and a constant drain, rises linearly to the target
 * during stops. Two passes make it periodic: after the first stop the trajectory no longer
 * depends on where the day started, so pass two starts from pass one's end of day.
 */
function fillLevel(s: ScenarioFile, p: DayProfile): void {
  if (p.stops.length === 0) {
    throw new ScenarioRuleError(`needs at least one ${s.powertrain === 'ELECTRIC' ? 'charge' : 'refuel'} stop a day, so that its level repeats daily`);
  }
  const perKm = s.energy.consumptionPer100Km / s.energy.capacity; // percentage points per km
  const drain = (s.energy.drainPctPerHour ?? 0) / 60;
  const stopAt = new Int16Array(DAY_MINUTES).fill(-1);
  p.stops.forEach((stop, i) => stopAt.fill(i, stop.start, stop.end));
  const run = (start: number) => {
    p.level[0] = start;
    for (let k = 0; k < DAY_MINUTES; k++) {
      const i = stopAt[k]!;
      const stop = i >= 0 ? p.stops[i]! : undefined;
      if (stop) {
        if (k === stop.start) stop.startPct = p.level[k]!;
        const target = stop.entry.targetPct!;
        p.level[k + 1] = stop.startPct + ((target - stop.startPct) * (k + 1 - stop.start)) / (stop.end - stop.start);
      } else {
        p.level[k + 1] = p.level[k]! - perKm * (p.dist[k + 1]! - p.dist[k]!) - drain;
      }
    }
  };
  run(p.stops[0]!.entry.targetPct!);
  run(p.level[DAY_MINUTES]!);
  let lowest = 0;
  let highest = 0;
  for (let k = 0; k < DAY_MINUTES; k++) {
    if (p.level[k]! < p.level[lowest]!) lowest = k;
    if (p.level[k]! > p.level[highest]!) highest = k;
  }
  const at = (k: number) => `${String(Math.floor(k / 60)).padStart(2, '0')}:${String(k % 60).padStart(2, '0')}`;
  const low = p.level[lowest]!;
  const high = p.level[highest]!;
  if (low < 0) throw new ScenarioRuleError(`runs out of ${s.powertrain === 'ELECTRIC' ? 'charge' : 'fuel'} at ${at(lowest)}: add a stop or lower the consumption`);
  const bounds = s.energy.keepWithinPct;
  if (bounds && (low < bounds[0] - 1e-9 || high > bounds[1] + 1e-9)) {
    throw new ScenarioRuleError(
      `level leaves keepWithinPct [${bounds[0]}, ${bounds[1]}]: lowest ${low.toFixed(2)} % at ${at(lowest)}, highest ${high.toFixed(2)} % at ${at(highest)}`,
    );
  }
}

/** Outside air, °C: coldest at 03:00, warmest at 15:00. */
export const ambientC = (minuteOfDay: number): number => 10 + 6 * Math.sin((2 * Math.PI * (minuteOfDay - 540)) / DAY_MINUTES);

/** Coolant approaches its working temperature while driving (or charging fast) and the air when parked. */
function fillCoolant(s: ScenarioFile, p: DayProfile): void {
  const electric = s.powertrain === 'ELECTRIC';
  const run = (start: number) => {
    p.coolant[0] = start;
    for (let k = 0; k < DAY_MINUTES; k++) {
      const a = p.activity[k]!;
      const [target, tau] =
        a === DRIVING ? (electric ? [35, 10] : [90, 6]) : a === CHARGING ? [28, 15] : [ambientC(k), electric ? 60 : 40];
      p.coolant[k + 1] = target + (p.coolant[k]! - target) * Math.exp(-1 / tau);
    }
  };
  run(ambientC(0));
  run(p.coolant[DAY_MINUTES]!);
}
