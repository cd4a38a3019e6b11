import type { Services } from '../services.ts';

/**
 * The members of Services the erasure's queue sweeps share (docs/architecture.md: a function
 * takes the members it uses): the queue's home (Redis URL, QUEUE_PREFIX) and the key that opens
 * its sealed jobs.
 */
export type QueueErasureDeps = Pick<Services, 'config' | 'redisUrl' | 'secrets'>;
