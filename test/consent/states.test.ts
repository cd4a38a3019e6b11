import { describe, expect, it } from 'vitest';
import {
  CONSENT_EVENTS,
  CONSENT_STATES,
  IllegalTransitionError,
  isActive,
  isTerminal,
  nextState,
  TRANSITIONS,
  UNSUCCESSFUL_END_STATES,
  type ConsentEvent,
  type ConsentState,
} from '../../src/consent/states.ts';

/** The legal transitions, written out by hand: every pair not listed here must be refused. */
const LEGAL: Record<string, ConsentState> = {
  'STARTED APPROVE': 'AWAITING_MANUFACTURER',
  'STARTED REJECT': 'REJECTED',
  'STARTED EXPIRE': 'TIMED_OUT',
  'STARTED REVOKE': 'REVOKED',
  'STARTED FAIL': 'FAILED',
  'AWAITING_MANUFACTURER CALLBACK': 'EXCHANGING_TOKEN',
  'AWAITING_MANUFACTURER FAIL': 'FAILED',
  'AWAITING_MANUFACTURER EXPIRE': 'TIMED_OUT',
  'AWAITING_MANUFACTURER REVOKE': 'REVOKED',
  'EXCHANGING_TOKEN GRANT': 'ACTIVE',
  'EXCHANGING_TOKEN FAIL': 'FAILED',
  'EXCHANGING_TOKEN EXPIRE': 'TIMED_OUT',
  'EXCHANGING_TOKEN REVOKE': 'REVOKED',
  'ACTIVE CONFIRM': 'CONFIRMED',
  'ACTIVE REVOKE': 'REVOKED',
  'ACTIVE SUPERSEDE': 'SUPERSEDED',
  'CONFIRMED REVOKE': 'REVOKED',
  'CONFIRMED SUPERSEDE': 'SUPERSEDED',
};

const pairs = CONSENT_STATES.flatMap((s) => CONSENT_EVENTS.map((e) => [s, e] as [ConsentState, ConsentEvent]));

describe('consent state machine', () => {
  it.each(pairs.filter(([s, e]) => `${s} ${e}` in LEGAL))('%s --%s--> allowed', (state, event) => {
    expect(nextState(state, event)).toBe(LEGAL[`${state} ${event}`]);
  });

  it.each(pairs.filter(([s, e]) => !(`${s} ${e}` in LEGAL)))('%s --%s--> refused', (state, event) => {
    expect(() => nextState(state, event)).toThrow(IllegalTransitionError);
  });

  it('ends in REJECTED, FAILED, TIMED_OUT, REVOKED and SUPERSEDED', () => {
    expect(CONSENT_STATES.filter(isTerminal)).toEqual(['REJECTED', 'FAILED', 'TIMED_OUT', 'REVOKED', 'SUPERSEDED']);
  });

  it('the retention sweep deletes exactly the terminal states no given consent can end in', () => {
    // Kept: a terminal state an active consent can move to records how a given consent ended.
    const endsOfGiven = new Set(Object.values(TRANSITIONS).filter((t) => t.from.some(isActive)).map((t) => t.to));
    const deleted = CONSENT_STATES.filter((s) => isTerminal(s) && !endsOfGiven.has(s));
    expect([...UNSUCCESSFUL_END_STATES].sort()).toEqual([...deleted].sort());
    expect(deleted).toEqual(['REJECTED', 'FAILED', 'TIMED_OUT']);
  });

  it('lets data flow only in ACTIVE and CONFIRMED', () => {
    expect(CONSENT_STATES.filter(isActive)).toEqual(['ACTIVE', 'CONFIRMED']);
  });

  it('becomes active only through the manufacturer step (GRANT)', () => {
    const into = pairs.filter(([s, e]) => `${s} ${e}` in LEGAL && isActive(LEGAL[`${s} ${e}`]!) && !isActive(s));
    expect(into).toEqual([['EXCHANGING_TOKEN', 'GRANT']]);
  });
});
