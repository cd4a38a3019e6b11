import { clientKey } from './client-key.ts';
import { sha256Hex } from '../crypto.ts';
import { ApiError, apiErrors } from '../errors.ts';
import { RATE_LIMIT_AUTH_FAILURE } from '../queues/keys.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import { createFixedWindowLimiter, type Counter } from './fixed-window.ts';

/**
 * The throttle of failed authentications, stricter than the API limits since it slows credential
 * guessing (docs/security.md "Throttling and exposure"): a bad API key, admin token or metrics token, and a confirmation
 * call with an unknown code (or someone else's), count against the client address (IPv6: its
 * /64) and, on the confirmation call, against the presented API key too. Only failures count:
 * a request that authenticates is never counted, and costs nothing here while no address is
 * locked out (one size check of an empty map).
 *
 * RATE_LIMIT_AUTH_FAILURE_MAX failures per RATE_LIMIT_AUTH_FAILURE_WINDOW_S pass as usual
 * (401, 404); the next one is answered 429 `CAR.429` with Retry-After, and from then until the
 * window ends every request of that address (or with that key) to a credential-checking route
 * gets the 429 before its credentials are looked at. Answering a correct guess differently
 * from a wrong one would tell the guesser which one was right, so the lockout cannot spare
 * correct credentials from a locked address; a client that authenticates correctly is affected
 * only when it shares its address with one that keeps failing, and only until the window ends.
 *
 * Counted in Redis with the data API's fixed-window limiter, so failures add up across API
 * processes (keys: a keyed hash of the address or key, never the address). Each process
 * remembers which subjects it saw over the limit and refuses them without a Redis call; a
 * process that has not seen it yet checks one more request of that subject, whose failure is
 * counted and refused like the others. Redis down: failures are not counted (fail open, like
 * every limit here), lockouts this process already knows stay.
 */
export interface AuthFailures {
  /**
   * The 429 when this process knows the client address (`ip`, the request's as the HTTP layer
   * reads it behind TRUST_PROXY) or one of `keys` is locked out; no Redis call.
   */
  locked(ip: string, keys?: string[]): ApiError | null;
  /** Counts one failure of the address (and `keys`); the error to answer: the 429 once over the limit, else `error`. */
  failed(ip: string, error: ApiError, keys?: string[]): Promise<ApiError>;
}

/** Subjects remembered as locked, at most (expired ones dropped first, then all). */
const MAX_LOCKED = 10_000;

/** The subjects of a request: its address, then each presented key by its hash (never the key). */
function subjectsOf(ip: string, keys: string[]): string[] {
  return [`ip:${clientKey(ip)}`, ...keys.map((k) => `key:${sha256Hex(k)}`)];
}

/**
 * The one throttle of a process, shared by every route that checks credentials: a member of
 * Services (services.authFailures), built by the composition root.
 */
export function createAuthFailures(deps: { config: Settings<'queues' | 'rateLimits'>; clock: Clock; secrets: SecretBox; redis: RedisClient; logger: Logger }): AuthFailures {
  const { config, clock, secrets } = deps;
  const limiter = createFixedWindowLimiter(deps.redis, deps.clock, deps.logger);
  const windowMs = config.RATE_LIMIT_AUTH_FAILURE_WINDOW_S * 1000;
  /** Subject → end of the window (ms) until which it is locked out. */
  const lockedUntil = new Map<string, number>();

  function lockout(untilMs: number, now: number): ApiError {
    return apiErrors.rateLimited((untilMs - now) / 1000);
  }

  function remember(subject: string, untilMs: number, now: number): void {
    if (lockedUntil.size >= MAX_LOCKED) {
      for (const [s, until] of lockedUntil) if (until <= now) lockedUntil.delete(s);
      if (lockedUntil.size >= MAX_LOCKED) lockedUntil.clear();
    }
    lockedUntil.set(subject, untilMs);
  }

  return {
    locked(ip, keys = []) {
      if (lockedUntil.size === 0) return null;
      const now = clock.now().getTime();
      let until = 0;
      for (const s of subjectsOf(ip, keys)) {
        const u = lockedUntil.get(s);
        if (u === undefined) continue;
        if (u <= now) lockedUntil.delete(s);
        else until = Math.max(until, u);
      }
      return until > 0 ? lockout(until, now) : null;
    },

    async failed(ip, error, keys = []) {
      const subjects = subjectsOf(ip, keys);
      const counters: Counter[] = subjects.map((s) => ({
        key: RATE_LIMIT_AUTH_FAILURE.key(config.QUEUE_PREFIX, secrets.pseudonym(s)),
        limit: config.RATE_LIMIT_AUTH_FAILURE_MAX,
        windowS: config.RATE_LIMIT_AUTH_FAILURE_WINDOW_S,
      }));
      const states = await limiter.hit(counters);
      const now = clock.now().getTime();
      const windowEnd = Math.floor(now / windowMs) * windowMs + windowMs;
      let over = false;
      states?.forEach((state, i) => {
        if (state.allowed) return;
        over = true;
        remember(subjects[i]!, windowEnd, now);
      });
      return over ? lockout(windowEnd, now) : error;
    },
  };
}
