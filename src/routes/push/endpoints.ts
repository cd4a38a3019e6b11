import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { deleteWebhook, putWebhook, rotateSecret, webhookView, type WebhookInput } from '../../push/webhooks/webhook-config.ts';
import { DEFAULT_ENDPOINT, type WebhookRecord } from '../../store/contract.ts';
import { deleteEndpointSchema, getEndpointSchema, listEndpointsSchema, putEndpointSchema, rotateEndpointSecretSchema } from './schemas.ts';
import type { PushRoutesShared } from './shared.ts';

type Params = { Params: { endpointId: string } };

export const noSuchEndpoint = (endpointId: string) => apiErrors.notFound(`No webhook endpoint ${endpointId} in this subscription.`);

/** An endpoint as GET shows it: its id, then what GET /push/v1/webhook shows. */
const view = (w: WebhookRecord, now: Date) => ({ endpointId: w.endpointId ?? DEFAULT_ENDPOINT, ...webhookView(w, now) });

/**
 * /push/v1/webhooks[/{endpointId}]: several webhook endpoints per subscription, each with its
 * own url, secret, event filter, update items, notices and delivery log. `default` is the one
 * /push/v1/webhook has always read and written, so clients of the single-webhook API see no change.
 */
export default async function endpointRoutes(app: FastifyInstance, opts: PushRoutesShared): Promise<void> {
  const { ctx, guard, resolve, subscriptionOf } = opts;
  const { store, clock } = ctx;

  app.get('/push/v1/webhooks', { schema: listEndpointsSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const now = clock.now();
    return (await store.webhooks.list(subscription.subscriptionId)).map((w) => view(w, now));
  });

  app.put<Params & { Body: WebhookInput }>('/push/v1/webhooks/:endpointId', { schema: putEndpointSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const { endpointId } = request.params;
    return { endpointId, ...(await putWebhook(ctx, subscription, request.body, resolve, endpointId)) };
  });

  app.get<Params>('/push/v1/webhooks/:endpointId', { schema: getEndpointSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const webhook = await store.webhooks.get(subscription.subscriptionId, request.params.endpointId);
    if (!webhook) throw noSuchEndpoint(request.params.endpointId);
    return view(webhook, clock.now());
  });

  app.delete<Params>('/push/v1/webhooks/:endpointId', { schema: deleteEndpointSchema, ...guard }, async (request, reply) => {
    const { subscription } = subscriptionOf(request);
    if (!(await deleteWebhook(ctx, subscription.subscriptionId, request.params.endpointId))) throw noSuchEndpoint(request.params.endpointId);
    return reply.code(204).send();
  });

  app.post<Params>('/push/v1/webhooks/:endpointId/rotate-secret', { schema: rotateEndpointSecretSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const { endpointId } = request.params;
    if (!(await store.webhooks.get(subscription.subscriptionId, endpointId))) throw noSuchEndpoint(endpointId);
    return rotateSecret(ctx, subscription.subscriptionId, endpointId);
  });
}
