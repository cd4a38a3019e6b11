import { isFleetVin } from '../../simulator/src/fleet.ts';
import { loadVirtualVins } from '../../simulator/src/virtual-vins.ts';
import type { Services } from '../services.ts';

/** How a VIN's activation will be confirmed, decided from the adapter that claims it. */
export type ActivationPlan =
  /** No adapter claims the VIN: INCAPABLE at once. */
  | { kind: 'none' }
  /** The manufacturer answers by itself after `delayMs` (manifest activation mode "auto"). */
  | { kind: 'auto'; manufacturer: string; delayMs: number }
  /** The manufacturer answers later over its activation callback (mode "callback"). */
  | { kind: 'callback'; manufacturer: string };

export function activationPlan(services: Services, vin: string): ActivationPlan {
  const adapter = services.adapters.forVin(vin);
  if (!adapter) return { kind: 'none' };
  const activation = adapter.manifest.activation;
  const manufacturer = adapter.manifest.id;
  if (activation.mode === 'callback') return { kind: 'callback', manufacturer };
  return { kind: 'auto', manufacturer, delayMs: activation.delayMs ?? services.config.VIRTUAL_ACTIVATION_DELAY_MS };
}

/** The virtual manufacturer's adapter id. */
export const VIRTUAL_MANUFACTURER = 'virtual';

/**
 * Whether an auto-confirming manufacturer has the VIN. The virtual manufacturer has exactly
 * the simulator's vehicles (the thirteen of the spec, every scenario's, and the SIM_FLEET_SIZE
 * generated fleet vehicles of load tests); any other auto-confirming adapter accepts every VIN
 * its prefixes claim.
 */
export function createVinOwnership(services: Services): (manufacturer: string, vin: string) => boolean {
  let virtualVins: Set<string> | undefined;
  return (manufacturer, vin) => {
    if (manufacturer !== VIRTUAL_MANUFACTURER) return true;
    if (isFleetVin(vin)) return Number(vin.slice(-6)) < services.config.SIM_FLEET_SIZE;
    virtualVins ??= loadVirtualVins(services.paths.scenarios);
    return virtualVins.has(vin);
  };
}
