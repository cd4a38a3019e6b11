import type { CrashZone, Powertrain, VehicleInfo } from './raw-format.ts';

/**
 * A scenario file (simulator/scenarios/<name>.json): one virtual vehicle, declared as data.
 * Times of day are "HH:MM" in the simulator's zone (UTC unless SIM_UTC_OFFSET_MINUTES);
 * periods are "<n>m" or "<n>h". simulator/README.md documents every field.
 */
export interface ScenarioFile {
  vin: string;
  /** One line saying what the vehicle does. */
  name: string;
  powertrain: Powertrain;
  /** Which road it drives, back and forth (see routes.ts). Default karlsruhe-mannheim. */
  route?: RouteName;
  /** Where on the route its odometer's zero lies, so vehicles spread out. Default 0. */
  routeOffsetKm?: number;
  /** Odometer reading at `epoch` (default 2026-01-01T00:00:00Z). */
  odometer?: { startKm: number; epoch?: string };
  driving: { cruiseKmh: number; variationPct?: number; maxKmh?: number };
  schedule: ScheduleEntry[];
  energy: EnergySpec;
  events?: EventEntry[];
  /** Switch optional raw-format groups on or off against the powertrain's defaults. */
  groups?: Partial<Record<OptionalGroup, boolean>>;
  /** Override generated numeric signals with constants, ranges or trends. */
  signals?: Partial<Record<SignalPath, ValueSpec>>;
  /** Basic vehicle data (basicvehicledata); unset fields get the drive type's defaults. */
  vehicle?: Partial<VehicleInfo>;
  /** Seed of the pseudo-random variation. Default: the VIN. */
  seed?: string;
}

export type RouteName = 'karlsruhe-mannheim' | 'karlsruhe-city' | 'mannheim-heidelberg';

export type Activity = 'drive' | 'refuel' | 'charge';

export interface Repeat {
  /** Repeat every this period ("15m", "2h") from the first occurrence, within each day. */
  every?: string;
  /** No occurrence starts at or after this time of day (default 24:00). */
  until?: string;
}

export interface ScheduleEntry extends Repeat {
  activity: Activity;
  from: string;
  to: string;
  /** Refuel/charge: level reached at the end of the stop. */
  targetPct?: number;
  /** Charge only. */
  method?: 'ALTERNATING' | 'DIRECT';
  voltageV?: number;
  maxCurrentA?: number;
  /** Charge only: the stop is a scheduled charging window. */
  windowSelected?: boolean;
  /** Charge only: where the charging station is (for the charging history). */
  station?: { city: string; street: string };
  /** Drive only: cruise speed of this window instead of driving.cruiseKmh. */
  cruiseKmh?: number;
}

export interface EnergySpec {
  /** Tank litres (combustion, diesel) or usable battery kWh (electric). */
  capacity: number;
  /** Litres or kWh per 100 km. */
  consumptionPer100Km: number;
  /** Constant loss in percentage points per hour outside stops (e.g. a leaking tank). */
  drainPctPerHour?: number;
  /** The level must stay within [min, max] over the whole day; checked at load. */
  keepWithinPct?: [number, number];
}

export type EventEntry = Repeat & { at: string } & (
    | {
        type: 'CRASH';
        severity: number;
        zones?: CrashZone[];
        /** Zones per occurrence, cycled (occurrence n of the day uses entry n mod length). */
        zonesCycle?: CrashZone[][];
        rollover?: boolean;
        pedestrianProtection?: boolean;
      }
    | { type: 'MANUAL_EMERGENCY_CALL' }
    | { type: 'TELESERVICE_CALL'; reason: string }
  );

export const OPTIONAL_GROUPS = [
  'fuel', 'diesel', 'traction', 'lowVoltage', 'brakes', 'serviceMessages', 'checkControl', 'trips', 'roof',
  'environment', 'body', 'diagnostics', 'vehicleInfo',
] as const;
export type OptionalGroup = (typeof OPTIONAL_GROUPS)[number];

/** Numeric signals a scenario may override. Kinematics and energy levels are not among them. */
export const SIGNAL_PATHS = [
  'engine.coolantC',
  'diesel.exhaustFluidPct',
  'diesel.exhaustFluidRangeKm',
  'traction.auxConsumptionKwh',
  'lowVoltage.mainV',
  'lowVoltage.accessoryV',
  'lowVoltage.backupV',
  'lowVoltage.socPct',
  'brakes.padLifePct',
  'brakes.fluidLifePct',
  'brakes.serviceDueKm',
  'trips.avgWeeklyKm',
  'trips.avgDailyKm',
  'roof.positionPct',
] as const;
export type SignalPath = (typeof SIGNAL_PATHS)[number];

/**
 * A value over time: a constant; uniform variation within [min, max] (seeded by VIN and
 * minute); a sawtooth trend from one bound to the other over `periodHours`; or separate
 * specs while driving and while parked.
 */
export type ValueSpec =
  | { constant: number }
  | { min: number; max: number; trend?: 'rising' | 'falling'; periodHours?: number }
  | { driving: ValueSpec; parked: ValueSpec };
