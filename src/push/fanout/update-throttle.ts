import type { PushContext } from '../context.ts';
import { PUSH_THROTTLE } from '../../queues/keys.ts';

/**
 * Admits an update push only when the point is at least `intervalMs` of data time after the
 * last admitted one of the same (subscription, vehicle, item). Atomic in Redis (one script),
 * so several pipeline workers agree. The stored value names the admitted transactionId, so a
 * retried batch that brings the same point again is admitted again (fan-out is idempotent).
 * Returns 1 to admit, 0 to skip.
 */
const SCRIPT = `
local last = redis.call('GET', KEYS[1])
if last then
  local sep = string.find(last, '|', 1, true)
  local lastTs = tonumber(string.sub(last, 1, sep - 1))
  if string.sub(last, sep + 1) == ARGV[3] then return 1 end
  if tonumber(ARGV[1]) < lastTs + tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[3], 'PX', ARGV[4])
return 1
`;

export interface UpdateThrottle {
  /** `endpointId`: a webhook endpoint other than the subscription's default one, which has an interval of its own. */
  admit(subscriptionId: string, vin: string, item: string, timestampMs: number, intervalMs: number, transactionId: string, endpointId?: string): Promise<boolean>;
}

export function createUpdateThrottle(services: Pick<PushContext, 'config' | 'redis' | 'secrets'>): UpdateThrottle {
  const { redis, config, secrets } = services;
  return {
    async admit(subscriptionId, vin, item, timestampMs, intervalMs, transactionId, endpointId) {
      // The key holds a pseudonym, never the VIN: Redis keys are read by operators and tools.
      const key = PUSH_THROTTLE.key(config.QUEUE_PREFIX, subscriptionId, secrets.pseudonym(vin), item, endpointId);
      // Kept a good while past the interval in wall time; after it expires the next point passes.
      const ttlMs = 2 * intervalMs + 3_600_000;
      const admitted = await redis.eval(SCRIPT, 1, key, timestampMs, intervalMs, transactionId, ttlMs);
      return admitted === 1;
    },
  };
}
