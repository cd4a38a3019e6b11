import { KESTREL_REQUEST_LOG } from '../keys.ts';
import type { RedisClient } from '../../queues/redis.ts';

/** One line of the simulated API's request log. */
export interface LoggedRequest {
  at: string;
  /** `received` when a page request arrives, `answered` when it is answered. */
  phase: 'received' | 'answered';
  /** The poller's x-request-id: which process asked. */
  requestId: string | null;
  vin: string;
  cursor: string | null;
  status?: number;
  nextCursor?: string;
  signals?: number;
}

/** How many requests the log keeps, newest first, and for how long. */
const KEEP = 2000;
const TTL_S = 86_400;

const key = KESTREL_REQUEST_LOG.key;

/**
 * The page requests the simulated API received and what it answered, as a manufacturer's
 * support would see them: which cursor was asked for, by which request id. Shared by every
 * process through Redis; GET /admin/v1/oem/<id>/api-requests reads it. Entries name the VIN
 * in clear, as a manufacturer's own log would: a GDPR erasure removes the VIN's entries
 * (../keys.ts).
 */
export async function logRequest(redis: RedisClient, prefix: string, id: string, entry: LoggedRequest): Promise<void> {
  await redis.multi().lpush(key(prefix, id), JSON.stringify(entry)).ltrim(key(prefix, id), 0, KEEP - 1).expire(key(prefix, id), TTL_S).exec();
}

/** The logged requests, oldest first. */
export async function readRequestLog(redis: RedisClient, prefix: string, id: string): Promise<LoggedRequest[]> {
  return (await redis.lrange(key(prefix, id), 0, -1)).reverse().map((l) => JSON.parse(l) as LoggedRequest);
}
