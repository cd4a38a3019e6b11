import { join } from 'node:path';
import { sample, type SimZone, UTC } from '../../simulator/src/sample.ts';
import { loadScenarios } from '../../simulator/src/scenario-load.ts';
import type { TelemetryMessage } from '../../simulator/src/raw-format.ts';
import type { Vehicle } from '../../simulator/src/vehicle.ts';

export const SCENARIOS_DIR = join(import.meta.dirname, '..', '..', 'simulator', 'scenarios');

const vehicles = new Map(loadScenarios(SCENARIOS_DIR).map((s) => [s.vehicle.vin, s.vehicle]));

/** A vehicle of the committed scenarios by VIN suffix, e.g. "0000001" or "S08". */
export function vehicle(suffix: string): Vehicle {
  const vin = `V1RTUALV1N${suffix.padStart(7, '0')}`;
  const v = vehicles.get(vin);
  if (!v) throw new Error(`no scenario for ${vin}`);
  return v;
}

export const allVehicles = (): Vehicle[] => [...vehicles.values()];

/** Every minute's sample of one simulated day (from `dayIso` 00:00, in the zone). */
export function daySamples(v: Vehicle, dayIso: string, zone: SimZone = UTC): TelemetryMessage[] {
  const start = new Date(`${dayIso}T00:00:00Z`).getTime() - zone.utcOffsetMinutes * 60_000;
  return Array.from({ length: 1440 }, (_, i) => sample(v, start + i * 60_000, zone));
}

export const at = (iso: string): Date => new Date(iso);

/** "HH:MM" of a sample's time (UTC). */
export const hhmm = (m: TelemetryMessage): string => m.sampledAt.slice(11, 16);
