import type { ConnectionOptions } from 'bullmq';
import { redisOptions } from '../runtime/redis.ts';

/**
 * ioredis options for BullMQ. BullMQ bundles its own ioredis typings; the options object is the
 * same at run time, only `retryStrategy`'s declared return type differs, hence the cast.
 */
export function bullConnection(redisUrl: string, purpose: 'producer' | 'worker'): ConnectionOptions {
  return redisOptions(redisUrl, purpose) as ConnectionOptions;
}
