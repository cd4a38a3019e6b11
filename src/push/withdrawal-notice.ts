import { subscriptionWantsNotice } from './notices/notice.ts';
import { queueNotices } from './notices/notice-queue.ts';
import { REVOCATION_NOTICE_TYPE } from './notices/revocation-notice.ts';
import type { PushContext } from './context.ts';
import type { ConsentRecord } from '../store/contract.ts';

/**
 * Tells the consumer that the data subject withdrew a consent at the portal: one signed
 * `consent.revoked` notice to the subscription's webhook, through the push machinery
 * (src/push/notices/notice-queue.ts). The consent part calls it through its context
 * (ConsentContext.noticeOfWithdrawal, wired by src/main/contexts.ts). No webhook, or one that did
 * not opt in to the notice (notices are opt-in): no notice (the consumer sees REVOKED in its list).
 *
 * Runs after the revocation, which must take effect whatever happens here (GDPR Art. 7(3)): a
 * queue outage loses the notice (its row is DROPPED, the consumer's log shows why) and is logged,
 * but never undoes or fails the withdrawal. Returns the notice's transactionId, or null.
 */
export async function noticeOfWithdrawal(
  services: Pick<PushContext, 'clock' | 'config' | 'logger' | 'redisUrl' | 'secrets' | 'store'>,
  revoked: ConsentRecord,
  revokedAt: string,
): Promise<string | null> {
  const { store, logger } = services;
  if (revoked.vin === null) return null;
  try {
    if (!(await subscriptionWantsNotice(store, revoked.subscriptionId, REVOCATION_NOTICE_TYPE))) return null;
    const notice = { type: REVOCATION_NOTICE_TYPE, facts: { consentId: revoked.consentId, revokedAt, by: 'DATA_SUBJECT' } } as const;
    const [id] = await queueNotices(services, revoked.vin, [revoked.subscriptionId], notice, revokedAt, 'not queued: the push queue was unavailable');
    return id ?? null;
  } catch (err) {
    logger.error({ consentId: revoked.consentId, err: err instanceof Error ? err.message : String(err) }, 'consent.revoked notice not queued');
    return null;
  }
}
