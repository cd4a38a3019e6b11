import { isFleetVin } from './fleet.ts';
import { loadScenarios } from './scenario-load.ts';
import { capableItems } from './supplied-items.ts';

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

/**
 * The catalog items each vehicle of the virtual manufacturer supplies ({@link capableItems}), or
 * null for a VIN it does not have. A generated fleet vehicle supplies what its template does
 * (vehicle i copies scenario i mod n, simulator/src/fleet.ts). Read at the first question.
 */
export function virtualVehicleItems(scenariosDir: string, fleetSize: number): (vin: string) => ReadonlySet<string> | null {
  let byVin: Map<string, ReadonlySet<string>> | undefined;
  let templates: ReadonlySet<string>[] = [];
  return (vin) => {
    if (!byVin) {
      const loaded = loadScenarios(scenariosDir);
      byVin = new Map(loaded.map((s) => [s.vehicle.vin, new Set(capableItems(s.vehicle))]));
      templates = loaded.map((s) => byVin!.get(s.vehicle.vin)!);
    }
    if (isFleetVin(vin)) {
      const index = Number(vin.slice(-6));
      return index < fleetSize && templates.length > 0 ? templates[index % templates.length]! : null;
    }
    return byVin.get(vin) ?? null;
  };
}
