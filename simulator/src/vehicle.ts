import { buildDayProfile, ScenarioRuleError, type DayProfile } from './day-profile.ts';
import { seedOf } from './noise.ts';
import type { Powertrain, VehicleInfo } from './raw-format.ts';
import { getRoute, type Route } from './routes.ts';
import { OPTIONAL_GROUPS, type EventEntry, type OptionalGroup, type ScenarioFile } from './scenario-types.ts';
import { DAY_MINUTES, dailyStarts, parsePeriod, parseTimeOfDay } from './time-grid.ts';
import { vehicleInfo } from './vehicle-info.ts';

/** One event occurrence in the day. */
export interface DailyEvent {
  minuteOfDay: number;
  /** Which occurrence of this entry in the day (0-based): cycles crash zones. */
  index: number;
  entry: EventEntry;
}

/**
 * A virtual vehicle ready to simulate: its scenario plus everything derived from it once.
 * Immutable; the behaviour functions (sample, eventsBetween) read it and nothing else.
 */
export interface Vehicle {
  vin: string;
  scenario: ScenarioFile;
  powertrain: Powertrain;
  /** Seed of the per-minute variation of this VIN. */
  seed: number;
  profile: DayProfile;
  route: Route;
  routeOffsetKm: number;
  odometerStartKm: number;
  /** Epoch of the odometer, in ms (its day start in the simulator zone is computed per sample). */
  odometerEpochMs: number;
  events: DailyEvent[];
  groups: ReadonlySet<OptionalGroup>;
  /** Basic vehicle data (scenario `vehicle` over the drive type's defaults). */
  info: VehicleInfo;
}

const COMMON: OptionalGroup[] = ['lowVoltage', 'brakes', 'serviceMessages', 'checkControl', 'trips', 'environment', 'body', 'diagnostics', 'vehicleInfo'];
const DEFAULT_GROUPS: Record<Powertrain, OptionalGroup[]> = {
  COMBUSTION: ['fuel', ...COMMON],
  DIESEL: ['fuel', 'diesel', ...COMMON],
  ELECTRIC: ['traction', ...COMMON],
};

const DEFAULT_EPOCH = '2026-01-01T00:00:00Z';

/**
 * Builds a vehicle from a scenario. Pass `shared` to reuse another vehicle's day profile (the
 * fleet clones a few scenarios thousands of times); `overrides` change per-vehicle fields.
 * Throws ScenarioRuleError when the scenario cannot run.
 */
export function buildVehicle(
  scenario: ScenarioFile,
  shared?: { profile: DayProfile; events: DailyEvent[] },
  overrides: { vin?: string; routeOffsetKm?: number; odometerStartKm?: number } = {},
): Vehicle {
  const vin = overrides.vin ?? scenario.vin;
  const groups = new Set(DEFAULT_GROUPS[scenario.powertrain]);
  for (const g of OPTIONAL_GROUPS) {
    const on = scenario.groups?.[g];
    if (on === true) groups.add(g);
    if (on === false) groups.delete(g);
  }
  if (scenario.powertrain === 'ELECTRIC' && (groups.has('fuel') || groups.has('diesel'))) {
    throw new ScenarioRuleError('an ELECTRIC vehicle has no fuel or diesel group');
  }
  if (scenario.powertrain !== 'ELECTRIC' && groups.has('traction')) throw new ScenarioRuleError('only an ELECTRIC vehicle has the traction group');
  if (scenario.powertrain !== 'DIESEL' && groups.has('diesel')) throw new ScenarioRuleError('only a DIESEL vehicle has the diesel group');
  return {
    vin,
    scenario,
    powertrain: scenario.powertrain,
    seed: seedOf(vin),
    profile: shared?.profile ?? buildDayProfile(scenario),
    route: getRoute(scenario.route ?? 'karlsruhe-mannheim'),
    routeOffsetKm: overrides.routeOffsetKm ?? scenario.routeOffsetKm ?? 0,
    odometerStartKm: overrides.odometerStartKm ?? scenario.odometer?.startKm ?? 10000,
    odometerEpochMs: new Date(scenario.odometer?.epoch ?? DEFAULT_EPOCH).getTime(),
    events: shared?.events ?? dailyEvents(scenario.events ?? []),
    groups,
    info: vehicleInfo(scenario),
  };
}

function dailyEvents(entries: EventEntry[]): DailyEvent[] {
  const out: DailyEvent[] = [];
  for (const entry of entries) {
    const first = parseTimeOfDay(entry.at);
    if (first >= DAY_MINUTES) throw new ScenarioRuleError(`event ${entry.type} at ${entry.at}: must be before 24:00`);
    const every = entry.every === undefined ? undefined : parsePeriod(entry.every);
    const until = entry.until === undefined ? DAY_MINUTES : parseTimeOfDay(entry.until);
    dailyStarts(first, every, until).forEach((minuteOfDay, index) => out.push({ minuteOfDay, index, entry }));
  }
  return out.sort((a, b) => a.minuteOfDay - b.minuteOfDay);
}
