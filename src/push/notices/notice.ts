import type { DeliveryRecord, Store, WebhookRecord } from '../../store/contract.ts';
import { ERASURE_NOTICE_TYPE, erasureNoticePart, type ErasureNoticeFacts } from './erasure-notice.ts';
import { REVOCATION_NOTICE_TYPE, revocationNoticePart, type RevocationNoticeFacts } from './revocation-notice.ts';

/**
 * Notices: webhook messages about a vehicle rather than its data (`vehicle.data_erased`,
 * `consent.revoked`). They share one shape and one path: a deliveries row of kind `notice` that
 * keeps no VIN (it may outlive the vehicle's data), a queue job that carries the VIN sealed and
 * only while the notice is pending, and the push worker's signing, retries and SSRF checks.
 * Consent and activation are not checked before sending: their end is what a notice reports.
 */
export type Notice =
  | { type: typeof ERASURE_NOTICE_TYPE; facts: ErasureNoticeFacts }
  | { type: typeof REVOCATION_NOTICE_TYPE; facts: RevocationNoticeFacts };

/** The notice types, in the order the docs list them: what a webhook's `notices` may name. */
export const NOTICE_TYPES = [ERASURE_NOTICE_TYPE, REVOCATION_NOTICE_TYPE] as const;

/**
 * Whether the webhook asked for notices of this type. Off by default: a
 * webhook receives only the live service's envelope (`inVehicleResponse`) unless its
 * configuration lists the type in `notices`. What a notice tells stays readable without it
 * (the consents list, GET /consent/v1/erasures).
 */
export function wantsNotice(webhook: Pick<WebhookRecord, 'notices'> | null, type: string): boolean {
  return webhook !== null && webhook.notices.includes(type);
}

/** Whether any webhook endpoint of the subscription asked for notices of this type. */
export async function subscriptionWantsNotice(store: Pick<Store, 'webhooks'>, subscriptionId: string, type: string): Promise<boolean> {
  return (await store.webhooks.list(subscriptionId)).some((w) => wantsNotice(w, type));
}

/** Each type's part of the body, after the envelope; keyed by the row's `item`. */
const PARTS: Record<Notice['type'], (facts: never, vin: string) => Record<string, unknown>> = {
  [ERASURE_NOTICE_TYPE]: erasureNoticePart,
  [REVOCATION_NOTICE_TYPE]: revocationNoticePart,
};

/** Why a notice cannot be sent: its job does not carry the VIN (a replay), or not one sealed for it. */
export const NOTICE_VIN_NOT_HELD = 'the VIN is no longer held: a notice is sent only from its own job';

/**
 * The body of a notice: the envelope of every push (forwardedAt, transactionId, subscriptionId)
 * with `type` and the type's part instead of `inVehicleResponse`. The VIN and nothing else
 * personal. Serialized once: those bytes are signed and sent. Null for a row of an unknown type.
 */
export function noticeBody(delivery: DeliveryRecord, vin: string, now: Date): string | null {
  const part = (PARTS as Record<string, ((facts: unknown, vin: string) => Record<string, unknown>) | undefined>)[delivery.item];
  if (!part) return null;
  return JSON.stringify({
    forwardedAt: now.toISOString(),
    transactionId: delivery.transactionId,
    subscriptionId: delivery.subscriptionId,
    type: delivery.item,
    ...part(delivery.payload, vin),
  });
}

/** The deliveries row of a notice: PENDING, `vin` empty, the facts as its payload. */
export function noticeDelivery(transactionId: string, subscriptionId: string, notice: Notice, at: string, endpointId?: string): DeliveryRecord {
  return {
    transactionId,
    subscriptionId,
    ...(endpointId ? { endpointId } : {}),
    vin: '',
    item: notice.type,
    kind: 'notice',
    timestampMs: Date.parse(at),
    payload: { ...notice.facts },
    status: 'PENDING',
    attempts: [],
    lastError: null,
    nextAttemptAt: null,
    createdAt: at,
    updatedAt: at,
  };
}
