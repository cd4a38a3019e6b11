import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiErrors } from '../errors.ts';
import { consumerContext } from '../http/consumer-auth.ts';
import type { Services } from '../services.ts';
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
 * A vehicle's key names it by its pseudonym, never the VIN (reliability checklist K6); the GDPR
 * erasure finds it by the same pseudonym (src/gdpr/redis-keys.ts).
 */
export interface RateLimits {
  /**
   * preValidation hook for routes limited per subscription only (management); must run after
   * requireSubscription (it keys on the authenticated subscription).
   */
  subscriptionHook(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * One decision for a read (delivery, history): counts the subscription and each VIN in one
   * Redis call, sets the RateLimit headers, throws the 429 when the subscription is over its
   * limit, and returns the VINs over their own limit with the soonest reset.
   */
  read(request: FastifyRequest, reply: FastifyReply, vins: string[]): Promise<VehicleLimits>;
}

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
 * One per Services (one per process), shared by the management, delivery and push routes: a
 * limiter leases tokens for itself, so one limiter per route would hold three leases of the same
 * subscription counter and answer three different `remaining`. The counters are built once per
 * subscription and VIN and reused: the limiter looks leases up by these key strings, and a
 * string built afresh per request is hashed on every lookup.
 */
interface ProcessLimits {
  limiter: FixedWindowLimiter;
  counters: Map<string, SubscriptionCounters>;
}
const perProcess = new WeakMap<Services, ProcessLimits>();

function processLimits(services: Services): ProcessLimits {
  let p = perProcess.get(services);
  if (!p) {
    p = { limiter: createFixedWindowLimiter(services.redis, services.clock, services.logger), counters: new Map() };
    perProcess.set(services, p);
  }
  return p;
}

/**
 * A GDPR erasure of a VIN, named by its pseudonym (src/gdpr/erase.ts deleted its counters in
 * Redis): this process drops the VIN's counters and their leases too, in every subscription or
 * in the one the erasure was scoped to.
 */
export function forgetVehicleLimits(services: Services, pseudonym: string, subscriptionId?: string): void {
  const p = perProcess.get(services);
  if (!p) return;
  if (subscriptionId === undefined) for (const own of p.counters.values()) own.vehicles.delete(pseudonym);
  else p.counters.get(subscriptionId)?.vehicles.delete(pseudonym);
  // The keys' ends (see vehicleCounter below).
  const suffix = subscriptionId === undefined ? `:v:${pseudonym}` : `:{${subscriptionId}}:v:${pseudonym}`;
  p.limiter.forget((key) => key.endsWith(suffix));
}

/** Every vehicle's counters and leases in this process (an erasure's message may have been missed). */
export function forgetAllVehicleLimits(services: Services): void {
  const p = perProcess.get(services);
  if (!p) return;
  for (const own of p.counters.values()) own.vehicles.clear();
  p.limiter.forget((key) => key.includes('}:v:'));
}

export function createRateLimits(services: Services): RateLimits {
  const { config, secrets } = services;
  const { limiter: l, counters } = processLimits(services);
  const base = `${config.QUEUE_PREFIX}:rl`;
  function countersOf(subscriptionId: string): SubscriptionCounters {
    let c = counters.get(subscriptionId);
    if (!c) {
      if (counters.size >= MAX_KEPT) counters.clear();
      c = {
        subscription: {
          key: `${base}:{${subscriptionId}}:s`,
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
        key: `${base}:{${subscriptionId}}:v:${vehicle}`,
        limit: config.RATE_LIMIT_VEHICLE_MAX,
        windowS: config.RATE_LIMIT_VEHICLE_WINDOW_S,
      };
      own.vehicles.set(vehicle, c);
    }
    return c;
  }

  function applySubscription(reply: FastifyReply, state: WindowState | undefined): void {
    if (!state) return; // Redis unavailable: fail open (documented)
    const headers = rateLimitHeaders(state);
    reply.headers(headers);
    if (!state.allowed) {
      const e = apiErrors.rateLimited(state.resetS);
      throw new ApiError(e.statusCode, e.reasonText, { ...e.headers, ...headers });
    }
  }

  return {
    async subscriptionHook(request, reply) {
      const { subscription } = consumerContext(request);
      const states = await l.hit([countersOf(subscription.subscriptionId).subscription]);
      applySubscription(reply, states?.[0]);
    },

    async read(request, reply, vins) {
      const { subscriptionId } = consumerContext(request).subscription;
      const distinct = [...new Set(vins)];
      const own = countersOf(subscriptionId);
      const states = await l.hit([own.subscription, ...distinct.map((vin) => vehicleCounter(subscriptionId, own, vin))]);
      applySubscription(reply, states?.[0]);
      const limited = new Set<string>();
      let retryAfterS = 0;
      states?.slice(1).forEach((s, i) => {
        if (s.allowed) return;
        limited.add(distinct[i]!);
        retryAfterS = retryAfterS === 0 ? s.resetS : Math.min(retryAfterS, s.resetS);
      });
      return { limited, retryAfterS };
    },
  };
}
