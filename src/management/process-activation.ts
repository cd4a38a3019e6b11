import type { ManagementContext } from './context.ts';
import type { VehicleStatus } from '../store/contract.ts';
import type { ActivationJob } from '../queues/activation-job.ts';

/**
 * Carries out one queued action. Idempotent: it acts only when the row is still in the pending
 * status the job was queued for, with a conditional transition, so a repeated, stale or
 * overtaken job changes nothing. Returns the status it set, or null when it had nothing to do.
 */
export async function processActivation(
  services: Pick<ManagementContext, 'store' | 'clock' | 'adapters' | 'logger' | 'secrets' | 'ownsVin'>,
  job: ActivationJob,
): Promise<VehicleStatus | null> {
  const { store, clock, adapters, logger } = services;
  const at = () => clock.now().toISOString();
  const vin = services.secrets.pseudonym(job.vin);

  if (job.action === 'deactivate') {
    // The service stops delivering by itself; no manufacturer needs to confirm a deactivation.
    const row = await store.vehicles.transition(job.subscriptionId, job.vin, ['PENDING_DEACTIVATION'], 'DEACTIVATED', at());
    if (row) logger.info({ vin, subscriptionId: job.subscriptionId }, 'vehicle deactivated');
    return row ? 'DEACTIVATED' : null;
  }

  const current = await store.vehicles.get(job.subscriptionId, job.vin);
  if (!current || current.status !== 'PENDING_ACTIVATION') return null;
  const adapter = current.manufacturer ? adapters.get(current.manufacturer) : undefined;
  let to: VehicleStatus;
  if (!adapter) {
    to = 'INCAPABLE';
  } else if (adapter.manifest.activation.mode === 'callback') {
    // This manufacturer confirms over its own callback (docs/vehicle-management.md).
    return null;
  } else {
    to = services.ownsVin(adapter.manifest.id, job.vin) ? 'ACTIVATED' : 'INCAPABLE';
  }
  const row = await store.vehicles.transition(job.subscriptionId, job.vin, ['PENDING_ACTIVATION'], to, at());
  if (row) logger.info({ vin, subscriptionId: job.subscriptionId, status: to }, 'activation answered by the manufacturer');
  return row ? to : null;
}

/**
 * A manufacturer's own answer for a VIN (the activation callback): applies to every
 * subscription where the VIN waits for this manufacturer. Returns how many rows it moved.
 */
export async function confirmFromManufacturer(
  services: Pick<ManagementContext, 'clock' | 'store'>,
  manufacturer: string,
  vin: string,
  outcome: 'ACTIVATED' | 'INCAPABLE',
): Promise<number> {
  const { store, clock } = services;
  const rows = await store.vehicles.listByVin(vin);
  let moved = 0;
  for (const r of rows) {
    if (r.manufacturer !== manufacturer || r.status !== 'PENDING_ACTIVATION') continue;
    const done = await store.vehicles.transition(r.subscriptionId, vin, ['PENDING_ACTIVATION'], outcome, clock.now().toISOString());
    if (done) moved++;
  }
  return moved;
}
