import { ERASURE_NOTICE_TYPE, type ErasureScope } from '../push/notices/erasure-notice.ts';
import { subscriptionWantsNotice } from '../push/notices/notice.ts';
import { queueNotices } from '../push/notices/notice-queue.ts';
import type { GdprContext } from './context.ts';
import type { NoticeDeps } from '../push/context.ts';

/**
 * The subscriptions an erasure concerns (GDPR Art. 19: recipients are told of an erasure): those that
 * hold the VIN — an activation or a consent process of it, in any state — within the scope.
 * Must run BEFORE the rows are erased. A repeated erasure that finds no rows left concerns no
 * one. The audit event of the erasure lists them: GET /consent/v1/erasures reads it.
 */
export async function erasureHolders(services: Pick<GdprContext, 'store'>, vin: string, scope: string | undefined): Promise<string[]> {
  const { store } = services;
  const [activations, consents] = await Promise.all([store.vehicles.listByVin(vin), store.consents.listByVin(vin)]);
  const holders = new Set([...activations, ...consents].map((r) => r.subscriptionId));
  return [...holders].filter((id) => scope === undefined || id === scope);
}

/**
 * The holders to send a notice: those whose webhook asked for `vehicle.data_erased` (notices
 * are opt-in), enabled or not (a disabled one gets its notice dead-lettered like any push).
 */
export async function erasureRecipients(services: Pick<GdprContext, 'store'>, holders: readonly string[]): Promise<string[]> {
  const wants = await Promise.all(holders.map((id) => subscriptionWantsNotice(services.store, id, ERASURE_NOTICE_TYPE)));
  return holders.filter((_, i) => wants[i]);
}

/**
 * Queues one `vehicle.data_erased` notice per recipient (src/push/notices/notice-queue.ts): the VIN is
 * held, sealed in the notice's job, only while the notice is pending. A fresh transactionId each
 * time, so a repeated erasure that still found rows sends a notice of its own.
 *
 * Called before the store rows are erased: if Redis refuses the jobs, the erasure stops with
 * nothing erased and can be repeated, and no notice is lost (the rows of the jobs that could not
 * be queued are dropped).
 */
export async function queueErasureNotices(
  services: NoticeDeps,
  vin: string,
  recipients: string[],
  scope: ErasureScope,
  erasedAt: string,
): Promise<string[]> {
  const notice = { type: ERASURE_NOTICE_TYPE, facts: { scope, erasedAt } } as const;
  return queueNotices(services, vin, recipients, notice, erasedAt, 'not queued: the erasure stopped and is to be repeated');
}
