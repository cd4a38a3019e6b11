import type { ManagementContext } from './context.ts';
import type { VehicleActivation, VehicleStatus } from '../store/contract.ts';
import { activationPlan, type ActivationPlan } from './manufacturer-policy.ts';
import type { ActivationJob } from '../queues/activation-job.ts';
import type { ActivationQueue } from './queue.ts';

export type VehicleAction = 'activate' | 'deactivate';

export interface VehicleActionResult {
  vin: string;
  status: VehicleStatus;
}

interface Step {
  /** The status to move to, or null to leave the row as it is. */
  to: VehicleStatus | null;
  /** Whether a job must (again) carry the pending action to the manufacturer. */
  enqueue: boolean;
}

/**
 * The lifecycle (docs/vehicle-management.md). Repeating an action is idempotent; a pending
 * action is queued again on repeat, so a client that retries after a 503 heals a lost job.
 */
function activateStep(current: VehicleStatus, plan: ActivationPlan): Step {
  switch (current) {
    case 'ACTIVATED':
      return { to: null, enqueue: false };
    case 'PENDING_ACTIVATION':
      return { to: null, enqueue: plan.kind === 'auto' };
    default: // INCAPABLE, PENDING_DEACTIVATION, DEACTIVATED: start again
      return plan.kind === 'none' ? { to: 'INCAPABLE', enqueue: false } : { to: 'PENDING_ACTIVATION', enqueue: plan.kind === 'auto' };
  }
}

function deactivateStep(current: VehicleStatus): Step {
  switch (current) {
    case 'PENDING_ACTIVATION':
    case 'ACTIVATED':
      return { to: 'PENDING_DEACTIVATION', enqueue: true };
    case 'PENDING_DEACTIVATION':
      return { to: null, enqueue: true };
    case 'INCAPABLE':
      return { to: 'DEACTIVATED', enqueue: false };
    case 'DEACTIVATED':
      return { to: null, enqueue: false };
  }
}

/**
 * Applies an action to the subscription's VINs (distinct, validated by the caller), writes the
 * new statuses before answering (so delivery stops at once on deactivate) and queues the work
 * the manufacturers' adapters do asynchronously. Returns one result per VIN, in input order.
 */
export async function applyVehicleAction(
  services: Pick<ManagementContext, 'adapters' | 'clock' | 'config' | 'store'>,
  queue: ActivationQueue,
  subscriptionId: string,
  action: VehicleAction,
  vins: string[],
): Promise<VehicleActionResult[]> {
  const { store, clock } = services;
  const at = clock.now().toISOString();
  const results: VehicleActionResult[] = [];
  const jobs: { job: ActivationJob; delayMs: number }[] = [];

  for (const vin of vins) {
    const plan = activationPlan(services, vin);
    const manufacturer = plan.kind === 'none' ? null : plan.manufacturer;
    const row = await store.vehicles.get(subscriptionId, vin);
    let status: VehicleStatus;
    let enqueue = false;
    if (!row) {
      if (action === 'deactivate') {
        // Never activated here: nothing to store, and nothing flows.
        results.push({ vin, status: 'DEACTIVATED' });
        continue;
      }
      status = plan.kind === 'none' ? 'INCAPABLE' : 'PENDING_ACTIVATION';
      await store.vehicles.upsert({ subscriptionId, vin, manufacturer, status, createdAt: at, updatedAt: at });
      enqueue = plan.kind === 'auto';
    } else {
      const step = action === 'activate' ? activateStep(row.status, plan) : deactivateStep(row.status);
      status = row.status;
      enqueue = step.enqueue;
      if (step.to) {
        const moved = await move(services, row, step.to, manufacturer, at);
        status = moved?.status ?? (await store.vehicles.get(subscriptionId, vin))?.status ?? status;
        // Lost a race with another process: that process queued what its own step needed.
        if (!moved) enqueue = false;
      }
    }
    results.push({ vin, status });
    if (enqueue) {
      jobs.push({
        job: { action, subscriptionId, vin },
        delayMs: action === 'activate' && plan.kind === 'auto' ? plan.delayMs : 0,
      });
    }
  }
  await queue.enqueue(jobs);
  return results;
}

/**
 * A conditional transition from the status just read. When the VIN's manufacturer changed since
 * (an adapter added or removed), the row is rewritten with the new one instead.
 */
async function move(
  services: Pick<ManagementContext, 'store'>,
  row: VehicleActivation,
  to: VehicleStatus,
  manufacturer: string | null,
  at: string,
): Promise<VehicleActivation | null> {
  if (row.manufacturer === manufacturer || to === 'PENDING_DEACTIVATION' || to === 'DEACTIVATED') {
    return services.store.vehicles.transition(row.subscriptionId, row.vin, [row.status], to, at);
  }
  const next = { ...row, manufacturer, status: to, updatedAt: at };
  await services.store.vehicles.upsert(next);
  return next;
}
