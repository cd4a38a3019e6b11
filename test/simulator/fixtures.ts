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

/** A small custom vehicle, as a data engineer would write it. */
export const customScenario = {
  vin: 'V1RTUALV1NC000042',
  name: 'Custom: an electric delivery van on the Mannheim-Heidelberg road, with a teleservice call at noon',
  powertrain: 'ELECTRIC',
  route: 'mannheim-heidelberg',
  driving: { cruiseKmh: 50 },
  schedule: [
    { activity: 'drive', from: '08:00', to: '12:00' },
    { activity: 'charge', from: '12:00', to: '13:00', targetPct: 90, method: 'DIRECT' },
    { activity: 'drive', from: '13:00', to: '17:00' },
    { activity: 'charge', from: '18:00', to: '22:00', targetPct: 90 },
  ],
  energy: { capacity: 110, consumptionPer100Km: 22 },
  events: [{ type: 'TELESERVICE_CALL', at: '12:00', reason: 'Tyre service' }],
  signals: { 'lowVoltage.socPct': { min: 70, max: 75 }, 'brakes.padLifePct': { min: 20, max: 90, trend: 'falling', periodHours: 720 } },
};
