import type { ManagementContext } from './context.ts';

/** How a VIN's activation will be confirmed, decided from the adapter that claims it. */
export type ActivationPlan =
  /** No adapter claims the VIN: INCAPABLE at once. */
  | { kind: 'none' }
  /** The manufacturer answers by itself after `delayMs` (manifest activation mode "auto"). */
  | { kind: 'auto'; manufacturer: string; delayMs: number }
  /** The manufacturer answers later over its activation callback (mode "callback"). */
  | { kind: 'callback'; manufacturer: string };

export function activationPlan(services: Pick<ManagementContext, 'adapters' | 'config'>, vin: string): ActivationPlan {
  const adapter = services.adapters.forVin(vin);
  if (!adapter) return { kind: 'none' };
  const activation = adapter.manifest.activation;
  const manufacturer = adapter.manifest.id;
  if (activation.mode === 'callback') return { kind: 'callback', manufacturer };
  return { kind: 'auto', manufacturer, delayMs: activation.delayMs ?? services.config.VIRTUAL_ACTIVATION_DELAY_MS };
}
