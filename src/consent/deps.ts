import type { Services } from '../services.ts';

/**
 * The members of Services the consent part's functions share (docs/architecture.md: a function
 * takes the members it uses). A function that needs a member more or less says so with its own
 * `Pick<Services, ...>`.
 */

/** A stored process and its 10-minute limits (CONSENT_CODE_TTL_S) by the service clock. */
export type ConsentDeps = Pick<Services, 'clock' | 'config' | 'store'>;

/** The withdrawal's short-lived state in Redis: keys under QUEUE_PREFIX, values sealed. */
export type WithdrawalStateDeps = Pick<Services, 'config' | 'redis' | 'secrets'>;
