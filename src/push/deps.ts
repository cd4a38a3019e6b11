import type { Services } from '../services.ts';

/**
 * The members of Services the push part's functions share (docs/architecture.md: a function
 * takes the members it uses). A function that needs a member more or less says so with its own
 * `Pick<Services, ...>`.
 */

/** Queueing notices (consent.revoked, erasure) through the push machinery. */
export type NoticeDeps = Pick<Services, 'clock' | 'config' | 'redisUrl' | 'secrets' | 'store'>;

/** The webhook delivery workers: the queue, the sealed jobs, the deliveries log. */
export type PushWorkerDeps = Pick<Services, 'clock' | 'config' | 'logger' | 'redisUrl' | 'secrets' | 'store'>;

/** Replaying deliveries from the log. */
export type ReplayDeps = Pick<Services, 'clock' | 'logger' | 'store'>;
