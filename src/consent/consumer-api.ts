import type { Services } from '../services.ts';
import type { ConsentDeps } from './deps.ts';
import type { ConsentHistoryEntry, ConsentRecord, ConsentState } from '../store/contract.ts';
import { shouldExpire } from './deadlines.ts';
import { applyEvent } from './process.ts';
import { noticeOfWithdrawal } from './withdrawal-notice.ts';
import type { RevokedBy } from '../push/notices/revocation-notice.ts';

/** A consent process as the consumer sees it (GET /consent/v1/consents). No secrets, no names. */
export interface ConsentView {
  consentId: string;
  subscriptionId: string;
  vin: string | null;
  manufacturer: string | null;
  state: ConsentState;
  /** True when the consent lets data flow now (ACTIVE or CONFIRMED). */
  active: boolean;
  errorCode: string | null;
  dataItems: string[];
  grantedItems: string[] | null;
  createdAt: string;
  consentGivenAt: string | null;
  activatedAt: string | null;
  confirmedAt: string | null;
  stateChangedAt: string;
  history: ConsentHistoryEntry[];
}

export function consentView(r: ConsentRecord): ConsentView {
  return {
    consentId: r.consentId,
    subscriptionId: r.subscriptionId,
    vin: r.vin,
    manufacturer: r.manufacturer,
    state: r.state,
    active: r.state === 'ACTIVE' || r.state === 'CONFIRMED',
    errorCode: r.errorCode,
    dataItems: r.dataItems,
    grantedItems: r.grantedItems,
    createdAt: r.createdAt,
    consentGivenAt: r.consentGivenAt,
    activatedAt: r.activatedAt,
    confirmedAt: r.confirmedAt,
    stateChangedAt: r.stateChangedAt,
    history: r.history,
  };
}

/** The subscription's processes, newest first; pending ones past their time are moved to TIMED_OUT. */
export async function listConsents(services: ConsentDeps, subscriptionId: string, vin?: string): Promise<ConsentView[]> {
  const now = services.clock.now();
  const records = await services.store.consents.listBySubscription(subscriptionId, vin !== undefined ? { vin } : {});
  const out: ConsentView[] = [];
  for (const r of records) {
    if (shouldExpire(r, now, services.config.CONSENT_CODE_TTL_S)) {
      const expired = await applyEvent(services.store, { consentId: r.consentId }, 'EXPIRE', { at: now });
      out.push(consentView(expired ?? (await services.store.consents.get(r.consentId)) ?? r));
    } else {
      out.push(consentView(r));
    }
  }
  return out;
}

/**
 * Revokes one process of the subscription (→ REVOKED). Delivery and push ask the store for an
 * active consent on every request, so data stops at once. Another subscription's process is
 * reported exactly like a missing one (null). A process that already ended is returned as is.
 *
 * `by`: the consumer through its API (it knows: no notice), or the data subject at the portal
 * (src/consent/withdrawal-flow.ts): then the consumer gets a `consent.revoked` notice. Only the
 * call that revoked sends it, so a repeated withdrawal sends nothing again.
 */
export async function revokeConsent(
  services: Pick<Services, 'clock' | 'config' | 'logger' | 'redisUrl' | 'secrets' | 'store'>,
  subscriptionId: string,
  consentId: string,
  by: RevokedBy = 'CONSUMER',
): Promise<ConsentView | null> {
  const record = consentId.length <= 64 ? await services.store.consents.get(consentId) : null;
  if (!record || record.subscriptionId !== subscriptionId) return null;
  const now = services.clock.now();
  const revoked = await applyEvent(services.store, { consentId }, 'REVOKE', { at: now });
  if (!revoked) {
    const current = await services.store.consents.get(consentId);
    return current ? consentView(current) : null;
  }
  const notice = by === 'DATA_SUBJECT' ? await noticeOfWithdrawal(services, revoked, now.toISOString()) : null;
  await services.store.audit.record({
    type: 'consent.revoked',
    at: now.toISOString(),
    subject: consentId,
    details: { subscriptionId, vin: revoked.vin === null ? null : services.secrets.pseudonym(revoked.vin), by, notice },
  });
  return consentView(revoked);
}
