import type { ConsentRecord } from '../store/contract.ts';
import { isPending } from './states.ts';

/**
 * The spec's 10-minute limits (CONSENT_CODE_TTL_S): a process whose last state change, or whose
 * consent, is older than `ttlS` has timed out. The store checks the same instant inside its
 * conditional update (`notBefore`); these helpers decide what to tell the user afterwards.
 */
export function notBefore(now: Date, ttlS: number): string {
  return new Date(now.getTime() - ttlS * 1000).toISOString();
}

export function isStale(record: ConsentRecord, now: Date, ttlS: number): boolean {
  const limit = notBefore(now, ttlS);
  return record.stateChangedAt < limit || (record.consentGivenAt !== null && record.consentGivenAt < limit);
}

/**
 * A pending process that has had no progress in time and should move to TIMED_OUT: by its last
 * state change only (spec section 8), as the periodic sweep decides, so a token exchange that a
 * callback at minute 9 started is left to end instead of being cut off by a list call.
 */
export function shouldExpire(record: ConsentRecord, now: Date, ttlS: number): boolean {
  return isPending(record.state) && record.stateChangedAt < notBefore(now, ttlS);
}
