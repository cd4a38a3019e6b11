import type { FastifyRequest } from 'fastify';
import { authenticateApiKey } from '../auth/api-keys.ts';
import { apiErrors } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Consumer, Subscription } from '../store/contract.ts';

export interface ConsumerContext {
  consumer: Consumer;
  subscription: Subscription;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by {@link requireSubscription} on the data API's routes. */
    consumerContext?: ConsumerContext;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * preHandler for the data API (management, delivery, push, consents): `x-api-key` and
 * `X-Subscription-Id` as api-contract section 1 says. The tenant comes from the key, never
 * from the header: a subscription of another consumer is answered exactly like one that does
 * not exist.
 */
export function requireSubscription(services: Services) {
  return async function checkSubscription(request: FastifyRequest): Promise<void> {
    const apiKey = header(request, 'x-api-key');
    if (apiKey === undefined || apiKey === '') throw apiErrors.missingHeader('X-Api-Key');
    const subscriptionId = header(request, 'x-subscription-id');
    if (subscriptionId === undefined || subscriptionId === '') throw apiErrors.missingHeader('X-Subscription-Id');
    const auth = await authenticateApiKey(services.store, apiKey);
    if (!auth) throw apiErrors.invalidApiKey();
    const subscription = subscriptionId.length <= 64 ? await services.store.subscriptions.get(subscriptionId) : null;
    if (!subscription || subscription.consumerId !== auth.consumer.consumerId) throw apiErrors.subscriptionNotFound();
    request.consumerContext = { consumer: auth.consumer, subscription, keyId: auth.key.keyId };
  };
}

/** The context set by {@link requireSubscription}; throws if the hook did not run. */
export function consumerContext(request: FastifyRequest): ConsumerContext {
  if (!request.consumerContext) throw new Error('requireSubscription hook missing on this route');
  return request.consumerContext;
}
