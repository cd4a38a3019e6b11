/**
 * The consent process as an explicit state machine (spec section 3 names no states; these are
 * ours). Every process records the time it entered each state (`history`).
 *
 * | state                 | meaning                                                                |
 * |-----------------------|------------------------------------------------------------------------|
 * | STARTED               | the portal page was shown; bound to the browser session. Not stored     |
 * |                       | until the user decides (src/consent/portal-entry.ts): created in this   |
 * |                       | state, then APPROVE or REJECT applies at once                           |
 * | AWAITING_MANUFACTURER | the user approved at the portal (consent given to the service, stored   |
 * |                       | at once as consentGivenAt) and was sent to the manufacturer             |
 * | EXCHANGING_TOKEN      | the manufacturer sent the user back; the code exchange is running      |
 * | ACTIVE                | the manufacturer granted every item for the VIN: data may flow         |
 * | CONFIRMED             | ACTIVE, and the consumer redeemed the confirmation code               |
 * | REJECTED              | the user rejected at the portal (terminal)                              |
 * | FAILED                | a step failed: the details sent at the portal, or the manufacturer step; |
 * |                       | `errorCode` holds the spec 7.2 code                                     |
 * | TIMED_OUT             | no progress for 10 minutes before the process became active (terminal) |
 * | REVOKED               | the consumer, or the user at the portal, withdrew the consent (terminal) |
 * | SUPERSEDED            | a newer consent for the same subscription and VIN replaced it          |
 *
 * Only ACTIVE and CONFIRMED let data flow ({@link ACTIVE_CONSENT_STATES}).
 */
import { ACTIVE_CONSENT_STATES, CONSENT_STATES, type ConsentState } from '../domain/consent-states.ts';

export { ACTIVE_CONSENT_STATES, CONSENT_STATES, type ConsentState };

/** What can happen to a process. Each event has exactly one target state. */
export const CONSENT_EVENTS = [
  'APPROVE',
  'REJECT',
  'CALLBACK',
  'GRANT',
  'FAIL',
  'CONFIRM',
  'EXPIRE',
  'REVOKE',
  'SUPERSEDE',
] as const;
export type ConsentEvent = (typeof CONSENT_EVENTS)[number];

/** States before the process became active: these time out. */
export const PENDING_STATES: readonly ConsentState[] = ['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN'];

/**
 * Terminal states of processes that never let data flow: the retention sweep deletes them
 * after CONSENT_PROCESS_RETENTION_DAYS. REVOKED and SUPERSEDED stay (until erasure): they
 * record a consent that was given, and how it ended; a process revoked before it became active
 * records none and is deleted like these (src/consent/sweep.ts).
 */
export const UNSUCCESSFUL_END_STATES: readonly ConsentState[] = ['REJECTED', 'FAILED', 'TIMED_OUT'];

/** The table of legal transitions: event → the states it may start from and where it leads. */
export const TRANSITIONS: Readonly<Record<ConsentEvent, { from: readonly ConsentState[]; to: ConsentState }>> = {
  /** The user approves at the portal; the service sends them to the manufacturer. */
  APPROVE: { from: ['STARTED'], to: 'AWAITING_MANUFACTURER' },
  /** The user rejects at the portal. */
  REJECT: { from: ['STARTED'], to: 'REJECTED' },
  /** The manufacturer's callback claims the process (a replay finds it claimed already). */
  CALLBACK: { from: ['AWAITING_MANUFACTURER'], to: 'EXCHANGING_TOKEN' },
  /** The token exchange and its checks succeeded. */
  GRANT: { from: ['EXCHANGING_TOKEN'], to: 'ACTIVE' },
  /**
   * A step failed: the details the user sent at the portal (invalid_request, when the consumer
   * is to be told by redirect) or the manufacturer step (declined, scope, VIN, connection,
   * timeout, mix-up).
   */
  FAIL: { from: ['STARTED', 'AWAITING_MANUFACTURER', 'EXCHANGING_TOKEN'], to: 'FAILED' },
  /** The consumer redeemed the confirmation code. */
  CONFIRM: { from: ['ACTIVE'], to: 'CONFIRMED' },
  /** Ten minutes passed without progress before the process became active. */
  EXPIRE: { from: PENDING_STATES, to: 'TIMED_OUT' },
  /** Consent withdrawn: pending or active processes end at once. */
  REVOKE: { from: [...PENDING_STATES, 'ACTIVE', 'CONFIRMED'], to: 'REVOKED' },
  /** A newer consent for the same subscription and VIN became active. */
  SUPERSEDE: { from: ACTIVE_CONSENT_STATES, to: 'SUPERSEDED' },
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: ConsentState,
    readonly event: ConsentEvent,
  ) {
    super(`consent event ${event} is not allowed in state ${from}`);
    this.name = 'IllegalTransitionError';
  }
}

/** True when `event` may happen in state `from`. */
export function canApply(from: ConsentState, event: ConsentEvent): boolean {
  return TRANSITIONS[event].from.includes(from);
}

/** The pure transition function: the next state, or an {@link IllegalTransitionError}. */
export function nextState(from: ConsentState, event: ConsentEvent): ConsentState {
  if (!canApply(from, event)) throw new IllegalTransitionError(from, event);
  return TRANSITIONS[event].to;
}

/** States no event leads out of. */
export function isTerminal(state: ConsentState): boolean {
  return CONSENT_EVENTS.every((e) => !canApply(state, e));
}

/** States before the process became active: these time out. */
export function isPending(state: ConsentState): boolean {
  return PENDING_STATES.includes(state);
}

export function isActive(state: ConsentState): boolean {
  return ACTIVE_CONSENT_STATES.includes(state);
}
