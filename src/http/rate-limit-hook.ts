import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimits } from '../rate-limit/limits.ts';
import { consumerContext } from './consumer-auth.ts';

/**
 * preValidation hook for routes limited per subscription only (management, push); must run
 * after requireSubscription (it keys on the authenticated subscription).
 */
export function subscriptionLimit(limits: RateLimits) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    limits.subscription(consumerContext(request).subscription.subscriptionId, reply);
}
