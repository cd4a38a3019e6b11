import { POLL_API_RATE } from '../../queues/keys.ts';
import type { RedisClient } from '../../queues/redis.ts';
import type { Clock } from '../../clock.ts';

/**
 * The request rate to one manufacturer's API, shared by every worker process through Redis:
 * requests are given slots at least 1/maxRequestsPerS apart, and a 429's Retry-After pauses
 * every process until it has passed.
 */
export interface ApiRateLimiter {
  /**
   * Asks for the next request slot. `granted`: the slot is reserved, send after `waitMs`.
   * Not granted: the next slot is more than `maxWaitMs` away (`waitMs`); come back then
   * instead of holding a worker for it.
   */
  acquire(maxWaitMs: number): Promise<{ granted: boolean; waitMs: number }>;
  /** The API answered 429: no process sends to it for `ms`. */
  pause(ms: number): Promise<void>;
  /** How long a 429 still pauses the API (0: not paused); checked again just before a reserved slot is used. */
  pausedMs(): Promise<number>;
}

// KEYS: next free slot (ms), pause end (ms). ARGV: now, spacing, most wait.
const ACQUIRE = `
local now = tonumber(ARGV[1])
local spacing = tonumber(ARGV[2])
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[2]) or '0'))
local wait = slot - now
if wait > tonumber(ARGV[3]) then return {0, wait} end
redis.call('SET', KEYS[1], slot + spacing, 'PX', wait + spacing + 60000)
return {1, wait}
`;

// KEYS: pause end. ARGV: until (ms), ttl (ms). Only ever moves the end later.
const PAUSE = `
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`;

export function createApiRateLimiter(opts: { redis: RedisClient; clock: Clock; prefix: string; manufacturer: string; maxRequestsPerS: number }): ApiRateLimiter {
  const { redis, clock } = opts;
  // One hash tag: the script reads both.
  const keys = [POLL_API_RATE.key(opts.prefix, opts.manufacturer, 'next-slot'), POLL_API_RATE.key(opts.prefix, opts.manufacturer, 'paused-until')];
  const spacingMs = Math.ceil(1000 / opts.maxRequestsPerS);
  return {
    async acquire(maxWaitMs) {
      const [granted, waitMs] = (await redis.eval(ACQUIRE, 2, ...keys, clock.now().getTime(), spacingMs, maxWaitMs)) as [number, number];
      return { granted: granted === 1, waitMs };
    },
    async pause(ms) {
      await redis.eval(PAUSE, 1, keys[1]!, clock.now().getTime() + ms, ms + 60_000);
    },
    async pausedMs() {
      return Math.max(0, Number((await redis.get(keys[1]!)) ?? 0) - clock.now().getTime());
    },
  };
}
