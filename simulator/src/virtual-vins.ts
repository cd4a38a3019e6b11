import { isFleetVin } from './fleet.ts';
import { loadScenarios } from './scenario-load.ts';

/**
 * The VINs the virtual manufacturer has: one per scenario file in `scenariosDir` (the thirteen
 * of the spec plus any custom vehicle). The management work confirms activations for these
 * and reports every other VIN as INCAPABLE. Throws ScenarioError on a broken file.
 */
export function loadVirtualVins(scenariosDir: string): Set<string> {
  return new Set(loadScenarios(scenariosDir).map((s) => s.vehicle.vin));
}

/**
 * Whether the virtual manufacturer has the VIN: the scenario vehicles (read at the first
 * question) and the `fleetSize` generated fleet vehicles of load tests (SIM_FLEET_SIZE).
 */
export function virtualVinOwnership(scenariosDir: string, fleetSize: number): (vin: string) => boolean {
  let scenarioVins: Set<string> | undefined;
  return (vin) => {
    if (isFleetVin(vin)) return Number(vin.slice(-6)) < fleetSize;
    scenarioVins ??= loadVirtualVins(scenariosDir);
    return scenarioVins.has(vin);
  };
}
