import type { onRequestHookHandler, preValidationHookHandler } from 'fastify';
import type { consumerContext } from '../../http/consumer-auth.ts';
import type { PushQueue } from '../../push/queue.ts';
import type { Resolver } from '../../push/ssrf/resolver.ts';
import type { PushRoutesContext } from '../contexts.ts';

/** What src/routes/push/index.ts hands to its two child plugins. */
export interface PushRoutesShared {
  ctx: PushRoutesContext;
  queue: PushQueue;
  guard: { onRequest: onRequestHookHandler; preValidation: preValidationHookHandler };
  resolve: Resolver;
  subscriptionOf: typeof consumerContext;
}
