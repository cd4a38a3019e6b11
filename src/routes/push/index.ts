import type { FastifyInstance } from 'fastify';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { createPushQueue } from '../../push/queue.ts';
import { systemResolver, type Resolver } from '../../push/ssrf/resolver.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import { subscriptionLimit } from '../../http/rate-limit-hook.ts';
import type { PushRoutesContext, RouteGroupOptions } from '../contexts.ts';
import deliveryRoutes from './deliveries.ts';
import endpointRoutes from './endpoints.ts';
import testEventRoutes from './test-event.ts';
import webhookRoutes from './webhook.ts';

/** What the push routes share. `resolve` is injectable so a test can play DNS for the SSRF check. */
export interface PushRouteOptions extends RouteGroupOptions<PushRoutesContext> {
  resolve?: Resolver;
}

/** Push delivery configuration and visibility (api-contract section 7): /push/v1/*. */
export default async function routes(app: FastifyInstance, opts: PushRouteOptions): Promise<void> {
  const { ctx } = opts;
  const queue = createPushQueue(ctx);
  app.addHook('onClose', async () => queue.close());
  const limits = createRateLimits(ctx);
  // Authentication first, before the body is read; then the limit, keyed on the authenticated
  // subscription.
  const guard = { onRequest: requireSubscription(ctx), preValidation: subscriptionLimit(limits) };
  const shared = { ctx, queue, guard, resolve: opts.resolve ?? systemResolver, subscriptionOf: consumerContext };
  await app.register(webhookRoutes, shared);
  await app.register(endpointRoutes, shared);
  await app.register(deliveryRoutes, shared);
  await app.register(testEventRoutes, shared);
}
