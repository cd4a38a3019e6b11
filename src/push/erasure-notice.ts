import type { SecretBox } from '../crypto.ts';
import { openJobData, sealJobData } from '../sealed-job.ts';
import type { DeliveryRecord } from '../store/contract.ts';
import type { PushJob } from './queue.ts';

/** The `type` of the notice body, and the `item` of its deliveries row. */
export const ERASURE_NOTICE_TYPE = 'vehicle.data_erased';

/** VEHICLE: every data of the VIN was erased; SUBSCRIPTION: only what this subscription held of it. */
export type ErasureScope = 'VEHICLE' | 'SUBSCRIPTION';

/** What a notice's deliveries row keeps as its payload: no VIN, the row outlives the erasure. */
export interface ErasureNoticeFacts {
  scope: ErasureScope;
  erasedAt: string;
}

/** Why a notice cannot be sent: its job does not carry the VIN (a replay), or not one sealed for it. */
export const NOTICE_VIN_NOT_HELD = 'the erased VIN is no longer held: an erasure notice is sent only from its own job';

/**
 * The queue job of a notice: the transactionId, and the VIN sealed with the service's key
 * (src/sealed-job.ts, as the pipeline's batches), bound to that transactionId so that a job whose
 * data was swapped with another notice's cannot name a VIN to the wrong consumer.
 */
export function noticeJob(secrets: SecretBox, transactionId: string, vin: string): PushJob {
  return sealJobData(secrets, { transactionId }, { transactionId, vin });
}

/** The VIN of the notice, or null when the job carries none for this transactionId (a replay, a foreign key). */
export function openNoticeVin(secrets: SecretBox, job: PushJob): string | null {
  try {
    const opened = openJobData(secrets, job, 'erasure notice') as { transactionId?: unknown; vin?: unknown } | null;
    return opened?.transactionId === job.transactionId && typeof opened.vin === 'string' ? opened.vin : null;
  } catch {
    return null;
  }
}

/**
 * The body of a `vehicle.data_erased` notice (reliability checklist K3, GDPR Art. 19): the
 * envelope of every push (forwardedAt, transactionId, subscriptionId) with `type` and what was
 * erased instead of `inVehicleResponse`. The VIN and nothing else personal. Serialized once:
 * those bytes are signed and sent.
 */
export function erasureNoticeBody(delivery: DeliveryRecord, vin: string, now: Date): string {
  const facts = delivery.payload as unknown as ErasureNoticeFacts;
  return JSON.stringify({
    forwardedAt: now.toISOString(),
    transactionId: delivery.transactionId,
    subscriptionId: delivery.subscriptionId,
    type: ERASURE_NOTICE_TYPE,
    vehicleDataErased: {
      identifier: { type: 'VIN', value: vin },
      erasedAt: facts.erasedAt,
      scope: facts.scope,
    },
  });
}

/** The deliveries row of a notice: PENDING, `vin` empty, the facts as its payload. */
export function noticeDelivery(transactionId: string, subscriptionId: string, facts: ErasureNoticeFacts): DeliveryRecord {
  return {
    transactionId,
    subscriptionId,
    vin: '',
    item: ERASURE_NOTICE_TYPE,
    kind: 'notice',
    timestampMs: Date.parse(facts.erasedAt),
    payload: { ...facts },
    status: 'PENDING',
    attempts: [],
    lastError: null,
    nextAttemptAt: null,
    createdAt: facts.erasedAt,
    updatedAt: facts.erasedAt,
  };
}
