import calculateSlot from 'cluster-key-slot';
import type { RedisClient } from '../queues/redis.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/**
 * A fixed-window counter kept in Redis, shared by every API process, with local leases so that
 * most hits need no Redis round trip (one per request cost ~40 % of the API's throughput).
 *
 * Each limiter instance (one per process) reserves tokens in Redis in batches ("leases") and
 * admits hits from that local budget. Redis counts tokens handed out, not hits, and never hands
 * out more than the limit in a window, so across all processes no more than the limit are ever
 * admitted. The counters of one `hit` that lack local budget are reserved together in one Lua
 * call per hash slot (one call when they share a hash tag); several concurrent hits may each reserve, every grant goes to the shared local budget
 * and every admitted hit takes one token out of it, so no hit passes without a granted token.
 * A lease is a fraction of what is left (see LEASE_DIVISOR): near the limit it shrinks to one
 * token, so the end of a window is decided exactly (of 50 parallel hits against a limit of 10,
 * exactly 10 pass). Denied hits are not counted in Redis (the old INCR-per-hit counted them), and
 * once this process has seen a counter reach its limit, it denies it without a round trip (counts
 * only grow within a window; a counter deleted mid-window by an erasure is forgotten with it).
 *
 * Tokens leased by a process and not used by the end of the window are lost: across several
 * processes slightly fewer than the limit may pass, never more.
 *
 * The window is computed from the injected clock, not from Redis time, so tests move time
 * instead of sleeping. Each window has its own key; keys outlive their window by one more
 * window, which tolerates clock skew between API processes.
 */
const SCRIPT = `
local divisor, maxLease = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i + 1])
  local old = redis.call('GET', key)
  local cur = tonumber(old) or 0
  local lease = math.min(maxLease, math.max(1, math.floor((limit - cur) / divisor)))
  local grant = math.min(lease, limit - cur)
  if grant > 0 then
    cur = redis.call('INCRBY', key, grant)
    if not old then redis.call('PEXPIRE', key, ARGV[2 * i + 2]) end
  else
    grant = 0
  end
  out[2 * i - 1] = cur
  out[2 * i] = grant
end
return out
`;

/**
 * A lease takes 1/LEASE_DIVISOR of what is left of the limit (at least 1): far from the limit
 * one Redis call serves many hits (a limit of 600 leases 9 tokens at a time, 1e6 leases
 * MAX_LEASE), while the last 2 × LEASE_DIVISOR tokens of a window go one per call, exactly.
 * It also bounds what a process can hold unused: 1/LEASE_DIVISOR of what was left when it leased,
 * which bounds both the tokens lost at the end of a window and how much lower than the truth
 * another process's `remaining` is. Limits below 128 therefore always lease one token.
 */
export const LEASE_DIVISOR = 64;
/** Largest lease, whatever the limit: bounds a process's unused tokens under very large limits. */
export const MAX_LEASE = 1000;
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
  /**
   * Requests admitted in this window, this one included when allowed: limit − remaining. Exact
   * in one process; with several, it also counts tokens other processes leased and have not
   * used yet. A denied request is not counted (count is then the limit).
   */
  count: number;
  limit: number;
  /** Requests left in this window after this one (never negative; 0 when denied). */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetS: number;
  windowS: number;
  allowed: boolean;
}

type LimiterRedis = RedisClient & {
  cvdFixedWindow(...args: (string | number)[]): Promise<number[]>;
};

export interface FixedWindowLimiter {
  /**
   * Counts one hit on each counter (keys kept distinct by the caller) and tells for each whether
   * it is within its limit, in the same order. Returns null when Redis did not answer in time:
   * the caller fails open.
   */
  hit(counters: Counter[]): Promise<WindowState[] | null>;
  /**
   * Drops this process's leases of the counters whose key `matches`, after something (a GDPR
   * erasure) deleted them in Redis: their next hit asks Redis again instead of denying a counter
   * this process saw full.
   */
  forget(matches: (key: string) => boolean): void;
}

/** This process's tokens for one counter in one window. */
interface Lease {
  /** Tokens leased from Redis and not used yet. */
  budget: number;
  /** The Redis count after this process's latest reservation (counts only grow in a window). */
  reserved: number;
  /** Start of the window (ms): a lease of another window is never used. */
  startMs: number;
  /** End of the window (ms), after which the entry is dropped. */
  endMs: number;
}

export function createFixedWindowLimiter(redis: RedisClient, clock: Clock, logger: Logger): FixedWindowLimiter {
  const r = redis as LimiterRedis;
  if (typeof r.cvdFixedWindow !== 'function') redis.defineCommand('cvdFixedWindow', { lua: SCRIPT });
  let lastWarn = 0;
  /**
   * Keyed by the counter's key as the caller keeps it, without the window: a key string built
   * afresh per hit had to be hashed on every lookup, which showed in the delivery profile.
   */
  const leases = new Map<string, Lease>();
  let nextPruneMs = Infinity;

  /**
   * The lease of this counter in the window starting at `startMs`: a new window replaces an
   * older one's lease (its budget is not carried over); a hit of an earlier window than the one
   * held (an answer that arrived late, a clock set back) gets a lease of its own, not kept.
   */
  function leaseOf(key: string, startMs: number, endMs: number): Lease {
    const held = leases.get(key);
    if (held?.startMs === startMs) return held;
    const lease = { budget: 0, reserved: 0, startMs, endMs };
    if (!held || held.startMs < startMs) {
      leases.set(key, lease);
      nextPruneMs = Math.min(nextPruneMs, endMs);
    }
    return lease;
  }

  /** Drops the leases of ended windows, at most once per window end (per-vehicle keys are many). */
  function prune(now: number): void {
    if (now < nextPruneMs) return;
    nextPruneMs = Infinity;
    for (const [key, lease] of leases) {
      if (lease.endMs <= now) leases.delete(key);
      else nextPruneMs = Math.min(nextPruneMs, lease.endMs);
    }
  }

  /** Takes one token if there is one; the state of the counter after this hit. */
  function decide(c: Counter, lease: Lease, resetS: number): WindowState {
    const allowed = lease.budget > 0;
    if (allowed) lease.budget--;
    const remaining = allowed ? Math.min(c.limit, Math.max(0, c.limit - lease.reserved + lease.budget)) : 0;
    return { count: c.limit - remaining, limit: c.limit, remaining, resetS, windowS: c.windowS, allowed };
  }

  /**
   * Reserves leases for the counters `missing` (indexes into the hit's counters, with their
   * windowed keys): one Lua call per hash slot, since a script may only touch keys of one slot
   * on a Redis Cluster (and so on one server too: what the suite checks there holds on a
   * cluster). Counters built to go together (a subscription and its vehicles) share a hash tag
   * (src/queues/keys.ts) and so go in one call. The answers come in the order of `missing`.
   */
  async function reserve(list: Counter[], missing: number[], keys: string[]): Promise<number[]> {
    const bySlot = new Map<number, number[]>();
    keys.forEach((key, j) => {
      const slot = calculateSlot(key);
      const group = bySlot.get(slot);
      if (group) group.push(j);
      else bySlot.set(slot, [j]);
    });
    const out: number[] = new Array<number>(2 * keys.length);
    await Promise.all(
      [...bySlot.values()].map(async (group) => {
        const args: (string | number)[] = [LEASE_DIVISOR, MAX_LEASE];
        for (const j of group) args.push(list[missing[j]!]!.limit, list[missing[j]!]!.windowS * 1000 * 2);
        const answer = await r.cvdFixedWindow(group.length, ...group.map((j) => keys[j]!), ...args);
        group.forEach((j, k) => {
          out[2 * j] = answer[2 * k]!;
          out[2 * j + 1] = answer[2 * k + 1]!;
        });
      }),
    );
    return out;
  }

  return {
    forget(matches) {
      for (const key of leases.keys()) if (matches(key)) leases.delete(key);
    },

    async hit(counters) {
      if (counters.length === 0) return [];
      const now = clock.now().getTime();
      prune(now);
      const states: WindowState[] = [];
      const missing: number[] = [];
      const keys: string[] = [];
      const windows = counters.map((c, i) => {
        const windowMs = c.windowS * 1000;
        const startMs = Math.floor(now / windowMs) * windowMs;
        const w = { startMs, endMs: startMs + windowMs, resetS: Math.max(1, Math.ceil((startMs + windowMs - now) / 1000)) };
        // Decided synchronously, so concurrent hits never take the same token twice; a counter
        // this process saw reach its limit is denied without asking.
        const lease = leaseOf(c.key, w.startMs, w.endMs);
        if (lease.budget > 0 || lease.reserved >= c.limit) states[i] = decide(c, lease, w.resetS);
        else {
          missing.push(i);
          // Each window has its own Redis key.
          keys.push(`${c.key}:${startMs}`);
        }
        return w;
      });
      if (missing.length === 0) return states;

      let timer: NodeJS.Timeout | undefined;
      try {
        const out = await Promise.race([
          reserve(counters, missing, keys),
          new Promise<never>((_, reject) => {
            // The refusal waits one turn of the event loop: after a stall (a busy host) the timer
            // fires before the socket is read, and an answer already there must win.
            timer = setTimeout(() => setImmediate(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`))), REDIS_TIMEOUT_MS);
          }),
        ]);
        missing.forEach((i, j) => {
          const w = windows[i]!;
          // Looked up again: the entry may have been pruned or dropped while we waited.
          const lease = leaseOf(counters[i]!.key, w.startMs, w.endMs);
          lease.reserved = Math.max(lease.reserved, out[2 * j]!);
          lease.budget += out[2 * j + 1]!;
          states[i] = decide(counters[i]!, lease, w.resetS);
        });
        return states;
      } catch (err) {
        // Budgets are dropped, not kept through an outage: if Redis lost its counters, budgets
        // leased before would come on top of a fresh count. A grant answered after the timeout
        // is lost too (counted in Redis, never used): both err on admitting fewer.
        leases.clear();
        nextPruneMs = Infinity;
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
