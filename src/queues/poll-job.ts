import { QUEUE_NAMES } from './keys.ts';
import type { SecretBox } from '../crypto.ts';
import { openJobData, sealJobData, type SealedJobData } from './sealed-job.ts';

/** The queue of polled vehicles: one job per (manufacturer, VIN). */
export const POLL_QUEUE = QUEUE_NAMES.poll;

/**
 * The state of one polled vehicle, kept in its job between polls. The job lives as long as the
 * vehicle is polled: a worker moves it to "delayed" until its next poll instead of completing it,
 * and rewrites its data with the cursor only after the page was durably accepted. Redis keeps it
 * as durably as every other queue (docs/operations.md), so a restart resumes from that cursor.
 */
export interface PollJob {
  manufacturer: string;
  vin: string;
  /** The cursor to ask for next; absent before the vehicle's first page. */
  cursor?: string;
  /** Failed polls in a row (5xx, timeouts, ...): the back-off grows with them. */
  failures: number;
}

/** Sealed like every job that holds a VIN (Redis never sees one in clear); the manufacturer stays readable. */
export type PollJobData = SealedJobData<{ manufacturer: string }>;

/**
 * The job id of a vehicle's poll: deterministic, so adding it again while it exists adds
 * nothing and no vehicle is ever polled by two jobs. Built from the VIN's pseudonym (the same
 * in every process with one SECRET_KEY), never the VIN.
 */
export function pollJobId(secrets: SecretBox, manufacturer: string, vin: string): string {
  return `${manufacturer}.${secrets.pseudonym(vin)}`;
}

export function encodePollJob(secrets: SecretBox, job: PollJob): PollJobData {
  return sealJobData(secrets, { manufacturer: job.manufacturer }, job);
}

/** Opens a poll job; throws when it is not one we wrote with this key. */
export function decodePollJob(secrets: SecretBox, data: unknown): PollJob {
  const job = openJobData(secrets, data, 'poll') as Partial<PollJob> | null;
  if (typeof job?.manufacturer !== 'string' || typeof job.vin !== 'string') throw new Error('poll job does not hold a manufacturer and a VIN');
  if (job.cursor !== undefined && typeof job.cursor !== 'string') throw new Error('poll job holds a cursor that is not a string');
  return { manufacturer: job.manufacturer, vin: job.vin, failures: typeof job.failures === 'number' ? job.failures : 0, ...(job.cursor === undefined ? {} : { cursor: job.cursor }) };
}
