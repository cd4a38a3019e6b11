import type { RevokedBy } from '../../consent/consumer-api.ts';

/** The `type` of the notice body, and the `item` of its deliveries row. */
export const REVOCATION_NOTICE_TYPE = 'consent.revoked';

export type { RevokedBy };

/** What the notice's deliveries row keeps as its payload (no VIN, as every notice row). */
export interface RevocationNoticeFacts {
  consentId: string;
  revokedAt: string;
  by: RevokedBy;
}

/**
 * The part of a `consent.revoked` notice (GDPR Art. 7(3): withdrawing is as easy as giving) that
 * follows the envelope (src/push/notices/notice.ts): which consent of which vehicle ended, when, by whom.
 */
export function revocationNoticePart(facts: RevocationNoticeFacts, vin: string): Record<string, unknown> {
  return { consentRevoked: { consentId: facts.consentId, identifier: { type: 'VIN', value: vin }, revokedAt: facts.revokedAt, by: facts.by } };
}
