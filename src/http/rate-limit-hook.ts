import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimits, VehicleLimits } from '../rate-limit/limits.ts';
import { consumerContext } from './consumer-auth.ts';

/**
 * preValidation hook for routes limited per subscription only (management, push); must run
 * after requireSubscription (it keys on the authenticated subscription). The limit decides;
 * this hook writes its RateLimit headers on the answer.
 */
export function subscriptionLimit(limits: RateLimits) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.headers(await limits.subscription(consumerContext(request).subscription.subscriptionId));
  };
}

/**
 * A read's limits (delivery, history), in the handler once the VINs are known: writes the
 * RateLimit headers on the answer and returns the VINs over their own limit.
 */
export async function readLimit(limits: RateLimits, request: FastifyRequest, reply: FastifyReply, vins: string[]): Promise<VehicleLimits> {
  const { headers, vehicles } = await limits.read(consumerContext(request).subscription.subscriptionId, vins);
  reply.headers(headers);
  return vehicles;
}
