import type { ConnectionOptions } from 'bullmq';
import { redisOptions } from './redis.ts';

/**
 * ioredis options for BullMQ, the one place every queue and worker gets them from. BullMQ
 * bundles its own ioredis typings; the options object is the same at run time, only
 * `retryStrategy`'s declared return type differs, hence the cast.
 *
 * Reconnecting backs off to at most 2 s, not BullMQ's 20 s: while a queue is unreachable,
 * publishers are refused and API calls answered 503, so it should be noticed soon after Redis
 * is back. `client`: a short-lived handle whose commands fail after one retry (the erasure's sweep).
 */
export function bullConnection(redisUrl: string, purpose: 'producer' | 'worker' | 'client'): ConnectionOptions {
  return { ...redisOptions(redisUrl, purpose), retryStrategy: (times: number) => Math.min(250 * times, 2000) } as ConnectionOptions;
}
