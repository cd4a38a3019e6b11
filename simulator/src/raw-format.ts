/**
 * The virtual manufacturer's raw format, version 1, as TypeScript types. The normative
 * description is adapters/virtual/README.md; these types mirror it so the simulator cannot
 * publish anything else.
 */

export type Powertrain = 'COMBUSTION' | 'DIESEL' | 'ELECTRIC';
export type CrashZone = 'FRONT_LEFT' | 'FRONT_RIGHT' | 'REAR_LEFT' | 'REAR_RIGHT' | 'SIDE_LEFT' | 'SIDE_RIGHT';
export const CRASH_ZONES: readonly CrashZone[] = ['FRONT_LEFT', 'FRONT_RIGHT', 'REAR_LEFT', 'REAR_RIGHT', 'SIDE_LEFT', 'SIDE_RIGHT'];
export type DieselStatus = 'UNKNOWN' | 'NORMAL_OPERATION' | 'OVERLOADED' | 'AT_LIMIT' | 'OVER_LIMIT';

export interface ChargingSession {
  start: string;
  end: string;
  startSocPct: number;
  endSocPct: number;
  energyKwh: number;
  odometerKm: number;
  costEur: number;
  city: string;
  street: string;
}

export interface TelemetrySignals {
  motion: { speedKmh: number; headingDeg: number; accel: { longitudinal: number; lateral: number; vertical: number } };
  position: { lat: number; lon: number };
  odometerKm: number;
  /** `ignition` is optional (older senders lack it): on exactly while the engine runs. */
  engine: { running: boolean; coolantC: number; ignition?: 'ON' | 'OFF' };
  /** `rangeKm` (optional): distance the fuel in the tank lasts. */
  fuel?: { levelPct: number; rangeKm?: number };
  diesel?: {
    exhaustFluidPct: number;
    exhaustFluidRangeKm: number;
    particulateFilter: DieselStatus;
    offboardRegeneration: DieselStatus;
    /** Optional: the boost-pressure regulator. */
    overboostRegulator?: DieselStatus;
  };
  traction?: {
    socPct: number;
    managementStatus: 'OK' | 'HIGH_VOLTAGE_USER_CUT_OFF' | 'INFOTAINMENT_CUT_OFF' | 'VEHICLE_WAKE_UP_BLOCKED';
    auxConsumptionKwh: number;
    charging: {
      status: 'FINISHED' | 'ACTIVE' | 'NOTCHARGING';
      method: 'ALTERNATING' | 'DIRECT' | 'NOTCHARGING';
      plug: 'CONNECTED' | 'DISCONNECTED' | 'UNKNOWN';
      window: 'SELECTED' | 'NOTSELECTED' | 'UNKNOWN';
      lastVoltageV: number;
      lastMaxCurrentA: number;
    };
    sessions: ChargingSession[];
  };
  lowVoltage?: { mainV: number; accessoryV: number; backupV: number; socPct: number; deepSleep: 'ON' | 'OFF' | 'UNKNOWN' };
  brakes?: { padLifePct: number; fluidLifePct: number; serviceDueKm: number };
  serviceMessages?: { id: number; name: string; description: string; status: string; dueDate: string; remaining: number }[];
  /** Distance to the next scheduled service (negative when overdue). */
  service?: { nextDistanceKm: number };
  /** `status`: the severity (CRITICAL, WARNING, INFO, UNKNOWN); `value`: the message's numeric code. */
  checkControl?: { id: number; text: string; status: string; value: number }[];
  trips?: { avgWeeklyKm: number; avgDailyKm: number };
  roof?: { positionPct: number; status: 'OPENED' | 'CLOSED' | 'LOCKED' | 'UNLOCKED' | 'SAFE' | 'SECURED' | 'INTERMEDIATE' | 'UNKNOWN' };
  environment?: { outsideC: number };
  body?: BodyState;
  diagnostics?: { codes: TroubleCode[] };
  vehicleInfo?: VehicleInfo;
}

export type Position = 'frontLeft' | 'frontRight' | 'rearLeft' | 'rearRight';
export const POSITIONS: readonly Position[] = ['frontLeft', 'frontRight', 'rearLeft', 'rearRight'];

/** Doors, locks, windows and lids. Windows in % open (0 closed, 100 fully open). */
export interface BodyState {
  /** Central locking: DOUBLE_LOCKED is the deadlock (catalog SECURED). */
  central: 'UNLOCKED' | 'LOCKED' | 'DOUBLE_LOCKED';
  doors: Record<Position, { open: boolean; locked: boolean }>;
  windowsPct: Record<Position, number>;
  trunkOpen: boolean;
  hood: { open: boolean; locked: boolean };
  /** Fuel filler flap (vehicles with a tank only). */
  fuelFlapLocked?: boolean;
}

/** A diagnostic trouble code as the vehicle's control units store it. */
export interface TroubleCode {
  code: string;
  ecu: string;
  count: number;
  firstSeen: string;
  /** Confirmed: the fault recurred or is severe; otherwise pending. */
  confirmed: boolean;
}

export interface VehicleInfo {
  brand: string;
  model: string;
  bodyType: string;
  colour: string;
  colourCode: string;
  seats: number;
  /** Calendar dates, YYYY-MM-DD. */
  produced: string;
  firstRegistered: string;
  country: string;
  software: string;
  equipment: string[];
}

/** `virtual/v1/<VIN>/telemetry`: one full sample on the one-minute grid of simulated time. */
export interface TelemetryMessage {
  schema: 'virtual.telemetry/1';
  messageId: string;
  vin: string;
  sampledAt: string;
  powertrain: Powertrain;
  signals: TelemetrySignals;
}

export type RawEvent =
  | { type: 'CRASH'; severity: number; zones: CrashZone[]; rollover: boolean; pedestrianProtection: boolean }
  | { type: 'MANUAL_EMERGENCY_CALL' }
  | { type: 'TELESERVICE_CALL'; reason: string };

/** `virtual/v1/<VIN>/event`: something happened, sent the moment it happens. */
export interface EventMessage {
  schema: 'virtual.event/1';
  messageId: string;
  vin: string;
  occurredAt: string;
  event: RawEvent;
}

export const telemetryTopic = (vin: string): string => `virtual/v1/${vin}/telemetry`;
export const eventTopic = (vin: string): string => `virtual/v1/${vin}/event`;
/** An event from before the vehicle connected, reported late: stored, not news. */
export const pastEventTopic = (vin: string): string => `virtual/v1/${vin}/past-event`;
