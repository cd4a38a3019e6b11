import type { FastifyInstance } from 'fastify';
import { replayDead, replayOne } from '../../push/deliver/replay.ts';
import { DEFAULT_ENDPOINT, type DeliveryRecord } from '../../store/contract.ts';
import { parseDeliveryQuery, parseInstant, type DeliveryListQuery } from './query.ts';
import { listDeliveriesSchema, replayBulkSchema, replayOneSchema } from './schemas.ts';
import type { PushRoutesShared } from './shared.ts';

/** What a consumer sees of a delivery: its attempts and outcome; the payload it can replay. */
const view = (d: DeliveryRecord) => ({
  transactionId: d.transactionId,
  endpointId: d.endpointId ?? DEFAULT_ENDPOINT,
  vin: d.vin,
  item: d.item,
  kind: d.kind,
  status: d.status,
  attempts: d.attempts,
  lastError: d.lastError,
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** GET /push/v1/deliveries and the replays. */
export default async function deliveryRoutes(app: FastifyInstance, opts: PushRoutesShared): Promise<void> {
  const { ctx, queue, guard, subscriptionOf } = opts;

  app.get<{ Querystring: DeliveryListQuery }>('/push/v1/deliveries', { schema: listDeliveriesSchema, ...guard }, async (request) => {
    const { subscription } = subscriptionOf(request);
    const q = parseDeliveryQuery(request.query);
    const rows = await ctx.store.deliveries.list({ subscriptionId: subscription.subscriptionId, ...q });
    return rows.map(view);
  });

  app.post<{ Body: { since: string; until?: string; endpointId?: string } }>('/push/v1/deliveries/replay', { schema: replayBulkSchema, ...guard }, async (request, reply) => {
    const { subscription } = subscriptionOf(request);
    const since = parseInstant('since', request.body.since);
    const until = request.body.until === undefined ? undefined : parseInstant('until', request.body.until);
    const { endpointId = DEFAULT_ENDPOINT } = parseDeliveryQuery({ ...(request.body.endpointId === undefined ? {} : { endpointId: request.body.endpointId }) });
    const result = await replayDead(ctx, queue, subscription.subscriptionId, { since, ...(until ? { until } : {}) }, endpointId);
    return reply.code(202).send(result);
  });

  app.post<{ Params: { transactionId: string } }>(
    '/push/v1/deliveries/:transactionId/replay',
    { schema: replayOneSchema, ...guard },
    async (request, reply) => {
      const { subscription } = subscriptionOf(request);
      const d = await replayOne(ctx, queue, subscription.subscriptionId, request.params.transactionId);
      return reply.code(202).send(view(d));
    },
  );
}
