import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { deleteWebhook, putWebhook, rotateSecret, webhookView, type WebhookInput } from '../../push/webhooks/webhook-config.ts';
import { deleteWebhookSchema, getWebhookSchema, putWebhookSchema, rotateSecretSchema } from './schemas.ts';
import type { PushRoutesShared } from './shared.ts';

/** PUT, GET, DELETE /push/v1/webhook and the secret rotation. */
export default async function webhookRoutes(app: FastifyInstance, opts: PushRoutesShared): Promise<void> {
  const { ctx, guard, resolve, subscriptionOf } = opts;
  const { store, clock } = ctx;

  app.put<{ Body: WebhookInput }>('/push/v1/webhook', { schema: putWebhookSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    return putWebhook(ctx, subscription, request.body, resolve);
  });

  app.get('/push/v1/webhook', { schema: getWebhookSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const webhook = await store.webhooks.get(subscription.subscriptionId);
    if (!webhook) throw apiErrors.notFound('No webhook configured for this subscription.');
    return webhookView(webhook, clock.now());
  });

  app.delete('/push/v1/webhook', { schema: deleteWebhookSchema, ...guard }, async (request, reply) => {
    const { subscription } = subscriptionOf(request);
    if (!(await deleteWebhook(ctx, subscription.subscriptionId))) throw apiErrors.notFound('No webhook configured for this subscription.');
    return reply.code(204).send();
  });

  app.post('/push/v1/webhook/rotate-secret', { schema: rotateSecretSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    return rotateSecret(ctx, subscription.subscriptionId);
  });
}
