import type { WingLoadContext, WingRegistrar } from '../http/wing-contract.ts';
import { loadSimSettings } from '../../simulator/src/settings.ts';
import { startSimulator } from '../../simulator/src/start.ts';
import { loadVirtualVins, virtualVehicleItems, virtualVinOwnership } from '../../simulator/src/virtual-vins.ts';
import { wingRoutes } from './index.ts';
import { WING_KEY_FAMILIES } from './keys.ts';
import { VIRTUAL } from './sandbox/index.ts';

/**
 * The virtual wing's one entry: the composition root imports this file dynamically, and only
 * when SIMULATOR=on (src/main/wing.ts), and the wing says here everything it adds to the
 * process. It reads its own settings (SIM_*, simulator/src/settings.ts) from the process's
 * environment; a bad one stops the start with a message naming it.
 */
export function registerWing(wing: WingRegistrar, ctx: WingLoadContext): void {
  const sim = loadSimSettings(ctx.env);
  const scenarios = ctx.paths.scenarios;
  // The simulated manufacturer has exactly the simulator's vehicles: the scenario files and the
  // SIM_FLEET_SIZE generated ones (any other VIN its prefixes claim is INCAPABLE).
  wing.manufacturer({
    id: VIRTUAL,
    ownsVin: virtualVinOwnership(scenarios, sim.SIM_FLEET_SIZE),
    vehicleItems: virtualVehicleItems(scenarios, sim.SIM_FLEET_SIZE),
    vins: () => [...loadVirtualVins(scenarios)],
  });
  wing.keyFamilies(WING_KEY_FAMILIES);
  wing.routes(wingRoutes(sim));
  wing.simulatorRole((services, brokerUrl) => startSimulator(services, sim, brokerUrl));
}
