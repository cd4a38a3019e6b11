/**
 * The domain's words for a consent process: every state it can be in (their meaning and the
 * events between them: src/consent/states.ts). Defined here, below the store, so the store
 * contract stores them and the consent work decides them without either defining the other's.
 */
export const CONSENT_STATES = [
  'STARTED',
  'AWAITING_MANUFACTURER',
  'EXCHANGING_TOKEN',
  'ACTIVE',
  'CONFIRMED',
  'REJECTED',
  'FAILED',
  'TIMED_OUT',
  'REVOKED',
  'SUPERSEDED',
] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/** The states in which a consent lets data flow (delivery and push check these). */
export const ACTIVE_CONSENT_STATES: readonly ConsentState[] = ['ACTIVE', 'CONFIRMED'];
