import type { FastifyRequest } from 'fastify';
import { apiErrors } from '../errors.ts';
import type { AuthFailures } from '../rate-limit/auth-failures.ts';
import type { ReadModel } from '../read-model/read-model.ts';
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

/** Subscription ids are UUIDs; anything much longer is not looked up at all. */
const MAX_SUBSCRIPTION_ID_LENGTH = 64;

/** Query parameters that look like an attempt to pass the key in the URL (compared lower-case). */
const KEY_QUERY_NAMES = new Set(['x-api-key', 'api-key', 'apikey', 'api_key', 'x_api_key']);

/** Node lower-cases header names, so `X-API-Key`, `x-api-key` and `X-Api-Key` are one header. */
function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** True when the query string carries something named like an API key: keys never go in the URL, which proxies and logs keep. */
export function keyInQuery(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (KEY_QUERY_NAMES.has(name.toLowerCase())) return true;
  }
  return false;
}

/**
 * preHandler (or onRequest) for the data API (management, delivery, push, consents):
 * `x-api-key` and `X-Subscription-Id` as api-contract section 1 says.
 * - a missing or empty header → 400 naming it;
 * - a key passed in the query string → 401, whatever the headers say: URLs end up in proxy
 *   logs and browser histories, so such a key is never accepted;
 * - an unknown, malformed or revoked key → 401;
 * - the tenant comes from the key, never from the header: a subscription of another consumer
 *   is answered exactly like one that does not exist (400 subscription not found), with the
 *   same look-ups on both paths (through the read model, src/read-model/read-model.ts, which
 *   may answer either from memory);
 * - the 401s count against the client address (src/rate-limit/auth-failures.ts): past
 *   RATE_LIMIT_AUTH_FAILURE_MAX in a window the address gets 429 before its key is looked at.
 */
export function requireSubscription(services: { authFailures: AuthFailures; readModel: ReadModel }) {
  const failures = services.authFailures;
  return async function checkSubscription(request: FastifyRequest): Promise<void> {
    const locked = failures.locked(request.ip);
    if (locked) throw locked;
    if (keyInQuery(request.url)) throw await failures.failed(request.ip, apiErrors.invalidApiKey());
    const apiKey = header(request, 'x-api-key');
    if (apiKey === undefined || apiKey === '') throw apiErrors.missingHeader('X-Api-Key');
    const subscriptionId = header(request, 'x-subscription-id');
    if (subscriptionId === undefined || subscriptionId === '') throw apiErrors.missingHeader('X-Subscription-Id');
    const auth = await services.readModel.authenticate(apiKey);
    if (!auth) throw await failures.failed(request.ip, apiErrors.invalidApiKey());
    const subscription =
      subscriptionId.length <= MAX_SUBSCRIPTION_ID_LENGTH ? await services.readModel.subscription(subscriptionId) : null;
    if (!subscription || subscription.consumerId !== auth.consumer.consumerId) throw apiErrors.subscriptionNotFound();
    request.consumerContext = { consumer: auth.consumer, subscription, keyId: auth.key.keyId };
  };
}

/** The context set by {@link requireSubscription}; throws if the hook did not run. */
export function consumerContext(request: FastifyRequest): ConsumerContext {
  if (!request.consumerContext) throw new Error('requireSubscription hook missing on this route');
  return request.consumerContext;
}
