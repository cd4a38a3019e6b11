import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiErrors } from '../errors.ts';
import { consumerContext } from '../http/consumer-auth.ts';
import type { Services } from '../services.ts';
import { createFixedWindowLimiter, type FixedWindowLimiter } from './fixed-window.ts';
import { rateLimitHeaders } from './headers.ts';

/**
 * The data API's two limits (docs/rate-limits.md):
 * - per subscription, over every management, delivery and history call: a 429 `CAR.429` with
 *   Retry-After once exceeded, and RateLimit headers on every answer;
 * - per vehicle and subscription, over delivery and history reads: `CAR.VE.906` for that
 *   vehicle inside a 200 (or a 429 on the single-vehicle history call).
 *
 * Keys carry the subscription in a hash tag, so one decision's keys share a Redis Cluster slot.
 */
export interface RateLimits {
  /** preHandler hook; must run after requireSubscription (it keys on the authenticated subscription). */
  subscriptionHook(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts one read of each VIN; returns the VINs over their limit, and the soonest reset. */
  vehicles(subscriptionId: string, vins: string[]): Promise<{ limited: Set<string>; retryAfterS: number }>;
}

export function createRateLimits(services: Services, limiter?: FixedWindowLimiter): RateLimits {
  const { config } = services;
  const l = limiter ?? createFixedWindowLimiter(services.redis, services.clock, services.logger);
  const base = `${config.QUEUE_PREFIX}:rl`;

  return {
    async subscriptionHook(request, reply) {
      const { subscription } = consumerContext(request);
      const states = await l.hit(
        [`${base}:{${subscription.subscriptionId}}:s`],
        config.RATE_LIMIT_SUBSCRIPTION_MAX,
        config.RATE_LIMIT_SUBSCRIPTION_WINDOW_S,
      );
      const state = states?.[0];
      if (!state) return; // Redis unavailable: fail open (documented)
      const headers = rateLimitHeaders(state);
      reply.headers(headers);
      if (!state.allowed) {
        const e = apiErrors.rateLimited(state.resetS);
        throw new ApiError(e.statusCode, e.reasonText, { ...e.headers, ...headers });
      }
    },

    async vehicles(subscriptionId, vins) {
      const distinct = [...new Set(vins)];
      const states = await l.hit(
        distinct.map((vin) => `${base}:{${subscriptionId}}:v:${vin}`),
        config.RATE_LIMIT_VEHICLE_MAX,
        config.RATE_LIMIT_VEHICLE_WINDOW_S,
      );
      const limited = new Set<string>();
      let retryAfterS = 0;
      states?.forEach((s, i) => {
        if (s.allowed) return;
        limited.add(distinct[i]!);
        retryAfterS = retryAfterS === 0 ? s.resetS : Math.min(retryAfterS, s.resetS);
      });
      return { limited, retryAfterS };
    },
  };
}
