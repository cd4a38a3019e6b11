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
  engine: { running: boolean; coolantC: number };
  fuel?: { levelPct: number };
  diesel?: {
    exhaustFluidPct: number;
    exhaustFluidRangeKm: number;
    particulateFilter: DieselStatus;
    offboardRegeneration: DieselStatus;
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
  checkControl?: { id: number; text: string; status: string; value: number }[];
  trips?: { avgWeeklyKm: number; avgDailyKm: number };
  roof?: { positionPct: number; status: 'OPENED' | 'CLOSED' | 'LOCKED' | 'UNLOCKED' | 'SAFE' | 'SECURED' | 'INTERMEDIATE' | 'UNKNOWN' };
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
