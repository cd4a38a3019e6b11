import type { onRequestHookHandler, preValidationHookHandler } from 'fastify';
import type { consumerContext } from '../../http/consumer-auth.ts';
import type { PushQueue } from '../../push/queue.ts';
import type { Resolver } from '../../push/ssrf/resolver.ts';
import type { Services } from '../../services.ts';

/** What src/routes/push/index.ts hands to its two child plugins. */
export interface PushRoutesShared {
  services: Services;
  queue: PushQueue;
  guard: { onRequest: onRequestHookHandler; preValidation: preValidationHookHandler };
  resolve: Resolver;
  subscriptionOf: typeof consumerContext;
}
