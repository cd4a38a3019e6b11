import type { ErasureScope } from '../push/notices/erasure-notice.ts';
import type { GdprContext } from './context.ts';
import type { AuditEvent } from '../store/contract.ts';

/** The audit event types of an erasure: VIN-wide, and of one subscription's data. */
export const ERASURE_AUDIT_TYPE = 'gdpr.erasure';
export const SUBSCRIPTION_ERASURE_AUDIT_TYPE = 'gdpr.erasure.subscription';

/** An erasure as a consumer reads it (GET /consent/v1/erasures): what a `vehicle.data_erased` notice says. */
export interface ErasureView {
  vin: string;
  scope: ErasureScope;
  erasedAt: string;
}

const strings = (v: unknown): string[] | null => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);

/**
 * Whether the erasure concerned the subscription: it held the VIN then (`holders`). An event
 * written before `holders` was recorded names only the subscriptions it notified.
 */
function concerned(event: AuditEvent, subscriptionId: string): boolean {
  const listed = strings(event.details.holders) ?? strings(event.details.notified) ?? [];
  return listed.includes(subscriptionId);
}

/**
 * The erasures of a vehicle that concerned the subscription, newest first, so
 * what the notice tells stays readable without a webhook. Read from the erasure's audit
 * event, which names the vehicle only by its pseudonym, so nothing of the VIN is kept for
 * this: the consumer asks with the VIN it holds, and the pseudonym of that VIN is looked up.
 */
export async function listErasures(services: Pick<GdprContext, 'secrets' | 'store'>, subscriptionId: string, vin: string): Promise<ErasureView[]> {
  const events = await services.store.audit.list({ subject: services.secrets.pseudonym(vin) });
  return events
    .filter((e) => (e.type === ERASURE_AUDIT_TYPE || e.type === SUBSCRIPTION_ERASURE_AUDIT_TYPE) && concerned(e, subscriptionId))
    .map((e): ErasureView => ({ vin, scope: e.type === ERASURE_AUDIT_TYPE ? 'VEHICLE' : 'SUBSCRIPTION', erasedAt: e.at }))
    .reverse();
}
