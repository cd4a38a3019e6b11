import { QUEUE_NAMES } from './keys.ts';
import type { SecretBox } from '../crypto.ts';
import { openJobData, sealJobData, type SealedJobData } from './sealed-job.ts';

/** The queue that carries activations to the manufacturers. */
export const ACTIVATION_QUEUE = QUEUE_NAMES.activation;

/**
 * One activation or deactivation of one VIN in one subscription. The worker re-reads the row
 * and acts only if it is still in the pending status the job was queued for, so a job that is
 * stale, repeated or overtaken by a later action changes nothing.
 */
export interface ActivationJob {
  action: 'activate' | 'deactivate';
  subscriptionId: string;
  vin: string;
}

/**
 * What an activation job carries in Redis: the whole job sealed (./sealed-job.ts), so no VIN
 * is readable there (VINs are pseudonymised in queues) and a job altered in Redis (another subscription,
 * another action) fails authentication. The job's name tells the action; its id is BullMQ's
 * counter, never the VIN.
 */
export type ActivationJobData = SealedJobData<object>;

export function encodeActivationJob(secrets: SecretBox, job: ActivationJob): ActivationJobData {
  return sealJobData(secrets, {}, { action: job.action, subscriptionId: job.subscriptionId, vin: job.vin });
}

function isActivationJob(value: unknown): value is ActivationJob {
  const j = value as Partial<ActivationJob> | null;
  return (j?.action === 'activate' || j?.action === 'deactivate') && typeof j.subscriptionId === 'string' && typeof j.vin === 'string';
}

/**
 * Opens an activation job; throws when it is not one we wrote with this key. A job queued in
 * clear by a version before the sealing is still read: failed jobs stay in Redis for
 * JOB_RETENTION_FAILED_S, and the erasure must find them as much as the worker may run them.
 */
export function decodeActivationJob(secrets: SecretBox, data: unknown): ActivationJob {
  if (isActivationJob(data)) return { action: data.action, subscriptionId: data.subscriptionId, vin: data.vin };
  const job = openJobData(secrets, data, 'activation');
  if (!isActivationJob(job)) throw new Error('activation job does not hold an action, a subscription and a VIN');
  return job;
}
