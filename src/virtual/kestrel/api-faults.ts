import { KESTREL_API_FAULTS } from '../keys.ts';
import type { RedisClient } from '../../queues/redis.ts';

/**
 * Faults a test or a demo orders from the simulated polled API, for its next page requests:
 * `slow` answers held `slowMs` first, then `rateLimited` answers 429 with `Retry-After:
 * retryAfterS`, then `serverErrors` answers 503. Kept in Redis, so every process serving the API
 * counts down the same order (PUT /admin/v1/oem/<id>/api-faults).
 */
export interface ApiFaults {
  slow: number;
  slowMs: number;
  rateLimited: number;
  retryAfterS: number;
  serverErrors: number;
}

export const NO_FAULTS: ApiFaults = { slow: 0, slowMs: 0, rateLimited: 0, retryAfterS: 1, serverErrors: 0 };

const key = KESTREL_API_FAULTS.key;

// Takes one of a counted fault, atomically across processes: 1 when there was one left.
const TAKE = `
local n = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if n > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -1) return 1 end
return 0
`;

export async function setApiFaults(redis: RedisClient, prefix: string, id: string, faults: ApiFaults): Promise<void> {
  await redis.del(key(prefix, id));
  await redis.hset(key(prefix, id), { ...faults });
}

export async function getApiFaults(redis: RedisClient, prefix: string, id: string): Promise<ApiFaults> {
  const h = await redis.hgetall(key(prefix, id));
  const n = (f: keyof ApiFaults) => (h[f] === undefined ? NO_FAULTS[f] : Number(h[f]));
  return { slow: n('slow'), slowMs: n('slowMs'), rateLimited: n('rateLimited'), retryAfterS: n('retryAfterS'), serverErrors: n('serverErrors') };
}

/** Whether this request gets one of the ordered faults of this kind (and counts it down). */
export async function takeFault(redis: RedisClient, prefix: string, id: string, kind: 'slow' | 'rateLimited' | 'serverErrors'): Promise<boolean> {
  return (await redis.eval(TAKE, 1, key(prefix, id), kind)) === 1;
}
