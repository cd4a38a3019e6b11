import { join } from 'node:path';
import { loadScenarioFile } from '../../../simulator/src/scenario-load.ts';
import { buildVehicle, type Vehicle } from '../../../simulator/src/vehicle.ts';

/**
 * Kestrel's simulated vehicles: four of the simulator's scenarios driven under Kestrel VINs
 * (simulator/README.md lists them). The same engine makes their data, so they behave like their
 * virtual twins, with their own per-VIN variation.
 */
export const KESTREL_FLEET: Readonly<Record<string, string>> = {
  KESTRELV1N0000001: '0000003-electric-every-hour.json',
  KESTRELV1N0000002: '0000001-combustion-even-hours.json',
  KESTRELV1N0000003: '0000004-electric-low-soc.json',
  KESTRELV1N0000004: '0000S08-light-crash-every-15-minutes.json',
};

/** The fleet's vehicles by VIN, built from the scenario files in `scenariosDir`. */
export function loadKestrelFleet(scenariosDir: string): Map<string, Vehicle> {
  const fleet = new Map<string, Vehicle>();
  for (const [vin, file] of Object.entries(KESTREL_FLEET)) fleet.set(vin, buildVehicle(loadScenarioFile(join(scenariosDir, file)), undefined, { vin }));
  return fleet;
}
