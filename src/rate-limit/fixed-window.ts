import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/**
 * A fixed-window counter kept in Redis, shared by every API process. One Lua call increments
 * all the keys of one decision (one subscription, or every vehicle of a delivery request), so
 * a decision is atomic: of 50 parallel requests against a limit of 10, exactly 10 pass.
 *
 * The window is computed from the injected clock, not from Redis time, so tests move time
 * instead of sleeping. Each window has its own key; keys outlive their window by one more
 * window, which tolerates clock skew between API processes.
 */
const SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  out[i] = n
end
return out
`;

/** Longest a limiter decision may wait for Redis before failing open. */
export const REDIS_TIMEOUT_MS = 250;
/** At most one "Redis down" warning per this interval, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 10_000;

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
   * Counts one hit on each key (kept distinct by the caller) and tells for each whether it is
   * within `limit`. Returns null when Redis did not answer in time: the caller fails open.
   */
  hit(keys: string[], limit: number, windowS: number): Promise<WindowState[] | null>;
}

export function createFixedWindowLimiter(redis: Redis, clock: Clock, logger: Logger): FixedWindowLimiter {
  const r = redis as LimiterRedis;
  if (typeof r.cvdFixedWindow !== 'function') redis.defineCommand('cvdFixedWindow', { lua: SCRIPT });
  let lastWarn = 0;

  return {
    async hit(keys, limit, windowS) {
      if (keys.length === 0) return [];
      const windowMs = windowS * 1000;
      const now = clock.now().getTime();
      const start = Math.floor(now / windowMs) * windowMs;
      const resetS = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
      const windowKeys = keys.map((k) => `${k}:${start}`);
      let timer: NodeJS.Timeout | undefined;
      try {
        const counts = await Promise.race([
          r.cvdFixedWindow(windowKeys.length, ...windowKeys, windowMs * 2),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
          }),
        ]);
        return counts.map((count) => ({
          count,
          limit,
          remaining: Math.max(0, limit - count),
          resetS,
          windowS,
          allowed: count <= limit,
        }));
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
