import { ApiError, apiErrors } from '../errors.ts';
import { RATE_LIMIT_SUBSCRIPTION, RATE_LIMIT_VEHICLE } from '../queues/keys.ts';
import type { RedisClient } from '../queues/redis.ts';
import type { Clock } from '../clock.ts';
import type { Settings } from '../config-sections.ts';
import type { SecretBox } from '../crypto.ts';
import type { Logger } from '../logger.ts';
import { createFixedWindowLimiter, type Counter, type FixedWindowLimiter, type WindowState } from './fixed-window.ts';
import { rateLimitHeaders } from './headers.ts';

/**
 * The data API's two limits (docs/rate-limits.md):
 * - per subscription, over every management, delivery and history call: a 429 `CAR.429` with
 *   Retry-After once exceeded, and RateLimit headers on every answer;
 * - per vehicle and subscription, over delivery and history reads: `CAR.VE.906` for that
 *   vehicle inside a 200 (or a 429 on the single-vehicle history call).
 *
 * Keys carry the subscription in a hash tag, so one decision's keys share a Redis Cluster slot.
 * A vehicle's key names it by its pseudonym, never the VIN (Redis never holds a VIN in clear); the GDPR
 * erasure finds it by the same pseudonym (src/gdpr/redis-keys.ts).
 */
export interface RateLimits {
  /**
   * One call limited per subscription only (management, push): counts it, returns the RateLimit
   * headers of its answer, throws the 429 (carrying them) when the subscription is over its
   * limit. The HTTP hook that calls it with the authenticated subscription, and writes the
   * headers, is src/http/rate-limit-hook.ts.
   */
  subscription(subscriptionId: string): Promise<LimitHeaders>;
  /**
   * One decision for a read (delivery, history): counts the subscription and each VIN in one
   * Redis call, throws the 429 when the subscription is over its limit, and returns the
   * RateLimit headers and the VINs over their own limit with the soonest reset.
   */
  read(subscriptionId: string, vins: string[]): Promise<{ headers: LimitHeaders; vehicles: VehicleLimits }>;
}

/** The RateLimit header fields of an answer (src/rate-limit/headers.ts); none while Redis is unavailable. */
export type LimitHeaders = Record<string, string>;

/** A subscription's counter and its vehicles' counters, by the VIN's pseudonym. */
interface SubscriptionCounters {
  subscription: Counter;
  vehicles: Map<string, Counter>;
}

/** Subscriptions, and VINs per subscription, whose counters are kept (all dropped when full). */
const MAX_KEPT = 10_000;

export interface VehicleLimits {
  limited: Set<string>;
  retryAfterS: number;
}

/**
 * One per process (a member of Services, built by the composition root), shared by the
 * management, delivery and push routes: a limiter leases tokens for itself, so one limiter per
 * route would hold three leases of the same subscription counter and answer three different
 * `remaining`. The counters are built once per subscription and VIN and reused: the limiter
 * looks leases up by these key strings, and a string built afresh per request is hashed on
 * every lookup.
 */
export interface ProcessLimits {
  limiter: FixedWindowLimiter;
  counters: Map<string, SubscriptionCounters>;
  /**
   * A GDPR erasure of a VIN, named by its pseudonym (src/gdpr/erase.ts deleted its counters in
   * Redis): this process drops the VIN's counters and their leases too, in every subscription or
   * in the one the erasure was scoped to.
   */
  forgetVehicle(pseudonym: string, subscriptionId?: string): void;
  /** Every vehicle's counters and leases in this process (an erasure's message may have been missed). */
  forgetAllVehicles(): void;
}

export function createProcessLimits(deps: { redis: RedisClient; clock: Clock; logger: Logger }): ProcessLimits {
  const limiter = createFixedWindowLimiter(deps.redis, deps.clock, deps.logger);
  const counters = new Map<string, SubscriptionCounters>();
  return {
    limiter,
    counters,
    forgetVehicle(pseudonym, subscriptionId) {
      if (subscriptionId === undefined) for (const own of counters.values()) own.vehicles.delete(pseudonym);
      else counters.get(subscriptionId)?.vehicles.delete(pseudonym);
      // The keys' ends (see vehicleCounter below).
      const suffix = RATE_LIMIT_VEHICLE.suffix(pseudonym, subscriptionId);
      limiter.forget((key) => key.endsWith(suffix));
    },
    forgetAllVehicles() {
      for (const own of counters.values()) own.vehicles.clear();
      limiter.forget((key) => key.includes('}:v:'));
    },
  };
}

export function createRateLimits(services: { config: Settings<'queues' | 'rateLimits'>; secrets: SecretBox; rateLimits: ProcessLimits }): RateLimits {
  const { config, secrets } = services;
  const { limiter: l, counters } = services.rateLimits;
  function countersOf(subscriptionId: string): SubscriptionCounters {
    let c = counters.get(subscriptionId);
    if (!c) {
      if (counters.size >= MAX_KEPT) counters.clear();
      c = {
        subscription: {
          key: RATE_LIMIT_SUBSCRIPTION.key(config.QUEUE_PREFIX, subscriptionId),
          limit: config.RATE_LIMIT_SUBSCRIPTION_MAX,
          windowS: config.RATE_LIMIT_SUBSCRIPTION_WINDOW_S,
        },
        vehicles: new Map(),
      };
      counters.set(subscriptionId, c);
    }
    return c;
  }
  function vehicleCounter(subscriptionId: string, own: SubscriptionCounters, vin: string): Counter {
    // By pseudonym, like the key: this map keeps no VIN in memory (a GDPR erasure makes every
    // process forget the VIN's pseudonym, src/gdpr/erase.ts).
    const vehicle = secrets.pseudonym(vin);
    let c = own.vehicles.get(vehicle);
    if (!c) {
      if (own.vehicles.size >= MAX_KEPT) own.vehicles.clear();
      c = {
        key: RATE_LIMIT_VEHICLE.key(config.QUEUE_PREFIX, subscriptionId, vehicle),
        limit: config.RATE_LIMIT_VEHICLE_MAX,
        windowS: config.RATE_LIMIT_VEHICLE_WINDOW_S,
      };
      own.vehicles.set(vehicle, c);
    }
    return c;
  }

  function applySubscription(state: WindowState | undefined): LimitHeaders {
    if (!state) return {}; // Redis unavailable: fail open (documented)
    const headers = rateLimitHeaders(state);
    if (!state.allowed) {
      const e = apiErrors.rateLimited(state.resetS);
      throw new ApiError(e.statusCode, e.reasonText, { ...e.headers, ...headers });
    }
    return headers;
  }

  return {
    async subscription(subscriptionId) {
      const states = await l.hit([countersOf(subscriptionId).subscription]);
      return applySubscription(states?.[0]);
    },

    async read(subscriptionId, vins) {
      const distinct = [...new Set(vins)];
      const own = countersOf(subscriptionId);
      const states = await l.hit([own.subscription, ...distinct.map((vin) => vehicleCounter(subscriptionId, own, vin))]);
      const headers = applySubscription(states?.[0]);
      const limited = new Set<string>();
      let retryAfterS = 0;
      states?.slice(1).forEach((s, i) => {
        if (s.allowed) return;
        limited.add(distinct[i]!);
        retryAfterS = retryAfterS === 0 ? s.resetS : Math.min(retryAfterS, s.resetS);
      });
      return { headers, vehicles: { limited, retryAfterS } };
    },
  };
}
