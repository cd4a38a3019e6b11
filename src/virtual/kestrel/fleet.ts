import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarioFile } from '../../../simulator/src/scenario-load.ts';
import { buildVehicle, type Vehicle } from '../../../simulator/src/vehicle.ts';

/** Where a polled manufacturer lists the vehicles its simulated API serves (data, in its adapter folder). */
export const SIMULATED_FLEET_FILE = 'simulated-fleet.json';

/**
 * The vehicles a simulated polled API serves: `adapters/<id>/simulated-fleet.json` names a
 * scenario of `simulator/scenarios/` per VIN, and the simulator's engine drives each under that
 * VIN (so it behaves like its virtual twin, with its own per-VIN variation). No file: no vehicle,
 * every VIN answered 404. A file that names a missing scenario or a VIN outside the adapter's
 * prefixes stops the start with the file's name, as a bad manifest does.
 */
export function loadSimulatedFleet(adapterDir: string, scenariosDir: string, vinPrefixes: readonly string[]): Map<string, Vehicle> {
  const file = join(adapterDir, SIMULATED_FLEET_FILE);
  const fleet = new Map<string, Vehicle>();
  if (!existsSync(file)) return fleet;
  const { vehicles } = JSON.parse(readFileSync(file, 'utf8')) as { vehicles?: Record<string, unknown> };
  for (const [vin, scenario] of Object.entries(vehicles ?? {})) {
    if (typeof scenario !== 'string') throw new Error(`${file}: the scenario of ${vin} is not a file name`);
    if (!vinPrefixes.some((p) => vin.startsWith(p))) throw new Error(`${file}: ${vin} does not start with one of the adapter's vinPrefixes (${vinPrefixes.join(', ')})`);
    fleet.set(vin, buildVehicle(loadScenarioFile(join(scenariosDir, scenario)), undefined, { vin }));
  }
  return fleet;
}
