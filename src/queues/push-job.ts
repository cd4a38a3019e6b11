import { QUEUE_NAMES } from './keys.ts';
import type { SecretBox } from '../crypto.ts';
import { openJobData, sealJobData } from './sealed-job.ts';

/** The queue of webhook deliveries (partitioned: PUSH_PARTITIONS). */
export const PUSH_QUEUE = QUEUE_NAMES.push;

/**
 * A delivery job carries only the transactionId: the VIN and the data point stay in the
 * deliveries row, so Redis never holds personal data. The one
 * exception is a notice (erasure, revocation), whose row keeps no VIN: its job carries the VIN
 * sealed (noticeJob), and only until the notice is sent or dead (src/push/notices/notice.ts).
 */
export interface PushJob {
  transactionId: string;
  /** Notices only (noticeJob): the VIN, sealed, and the sealing's format version. */
  sealed?: string;
  v?: 1;
}

/**
 * The queue job of a notice: the transactionId, and the VIN sealed with the service's key
 * (./sealed-job.ts, as the pipeline's batches), bound to that transactionId so that a job whose
 * data was swapped with another notice's cannot name a VIN to the wrong consumer.
 */
export function noticeJob(secrets: SecretBox, transactionId: string, vin: string): PushJob {
  return sealJobData(secrets, { transactionId }, { transactionId, vin });
}

/** The VIN of the notice, or null when the job carries none for this transactionId (a replay, a foreign key). */
export function openNoticeVin(secrets: SecretBox, job: PushJob): string | null {
  try {
    const opened = openJobData(secrets, job, 'notice') as { transactionId?: unknown; vin?: unknown } | null;
    return opened?.transactionId === job.transactionId && typeof opened.vin === 'string' ? opened.vin : null;
  } catch {
    return null;
  }
}
