import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/**
 * A fixed-window counter kept in Redis, shared by every API process. One Lua call increments
 * all the counters of one decision (a subscription and every vehicle of a delivery request), so
 * a decision is atomic and costs one round trip: of 50 parallel requests against a limit of 10,
 * exactly 10 pass.
 *
 * The window is computed from the injected clock, not from Redis time, so tests move time
 * instead of sleeping. Each window has its own key; keys outlive their window by one more
 * window, which tolerates clock skew between API processes.
 */
const SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[i]) end
  out[i] = n
end
return out
`;

/** Longest a limiter decision may wait for Redis before failing open. */
export const REDIS_TIMEOUT_MS = 250;
/** At most one "Redis down" warning per this interval, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 10_000;

/** One counter to bump: its key (without the window suffix) and its quota. */
export interface Counter {
  key: string;
  limit: number;
  windowS: number;
}

export interface WindowState {
  /** Requests counted in this window, this one included. */
  count: number;
  limit: number;
  /** Requests left in this window after this one (never negative). */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetS: number;
  windowS: number;
  allowed: boolean;
}

interface LimiterRedis extends Redis {
  cvdFixedWindow(...args: (string | number)[]): Promise<number[]>;
}

export interface FixedWindowLimiter {
  /**
   * Counts one hit on each counter (keys kept distinct by the caller) and tells for each whether
   * it is within its limit, in the same order. Returns null when Redis did not answer in time:
   * the caller fails open.
   */
  hit(counters: Counter[]): Promise<WindowState[] | null>;
}

export function createFixedWindowLimiter(redis: Redis, clock: Clock, logger: Logger): FixedWindowLimiter {
  const r = redis as LimiterRedis;
  if (typeof r.cvdFixedWindow !== 'function') redis.defineCommand('cvdFixedWindow', { lua: SCRIPT });
  let lastWarn = 0;

  return {
    async hit(counters) {
      if (counters.length === 0) return [];
      const now = clock.now().getTime();
      const keys: string[] = [];
      const ttls: number[] = [];
      const resets: number[] = [];
      for (const c of counters) {
        const windowMs = c.windowS * 1000;
        const start = Math.floor(now / windowMs) * windowMs;
        keys.push(`${c.key}:${start}`);
        ttls.push(windowMs * 2);
        resets.push(Math.max(1, Math.ceil((start + windowMs - now) / 1000)));
      }
      let timer: NodeJS.Timeout | undefined;
      try {
        const counts = await Promise.race([
          r.cvdFixedWindow(keys.length, ...keys, ...ttls),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
          }),
        ]);
        return counts.map((count, i) => {
          const { limit, windowS } = counters[i]!;
          return { count, limit, remaining: Math.max(0, limit - count), resetS: resets[i]!, windowS, allowed: count <= limit };
        });
      } catch (err) {
        // Fail open: an outage of the limiter's Redis must not take the data API down with it.
        if (Date.now() - lastWarn > WARN_INTERVAL_MS) {
          lastWarn = Date.now();
          logger.warn({ err: (err as Error).message }, 'rate limiter unavailable, requests pass unlimited');
        }
        return null;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
