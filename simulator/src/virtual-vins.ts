import { loadScenarios } from './scenario-load.ts';

/**
 * The VINs the virtual manufacturer has: one per scenario file in `scenariosDir` (the thirteen
 * of the spec plus any custom vehicle). The management work confirms activations for these
 * and reports every other VIN as INCAPABLE. Throws ScenarioError on a broken file.
 */
export function loadVirtualVins(scenariosDir: string): Set<string> {
  return new Set(loadScenarios(scenariosDir).map((s) => s.vehicle.vin));
}
