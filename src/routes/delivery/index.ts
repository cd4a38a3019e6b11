import type { FastifyInstance } from 'fastify';
import { checkHistoryParams, readHistory, type HistoryParams } from '../../delivery/history.ts';
import { deliverInVehicle, wellFormedVins } from '../../delivery/in-vehicle.ts';
import { checkDeliveryRequest, type DeliveryRequestBody } from '../../delivery/request.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { readLimit } from '../../http/rate-limit-hook.ts';
import { metrics } from '../../metrics/metrics.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import type { DeliveryRoutesContext, RouteGroupOptions } from '../contexts.ts';
import { historySchema, inVehicleSchema } from './schemas.ts';

/**
 * In-vehicle delivery (api-contract section 6): POST /delivery/v1/in-vehicle, and the history
 * of one item of one vehicle (docs/history.md): GET /delivery/v1/history/{vin}/{item}.
 */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<DeliveryRoutesContext>): Promise<void> {
  const { ctx } = opts;
  const limits = createRateLimits(ctx);
  // Authentication first, before the media type and before the body is read (a request without
  // a valid key learns nothing about its body). The limits are counted in the handler, after the
  // whole-request checks, in ONE Redis call for the subscription and every requested vehicle.
  const guard = { onRequest: [requireSubscription(ctx), requireJsonBody] };
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === '/delivery/v1/in-vehicle') {
      metrics.deliveryRequests.inc({ outcome: reply.statusCode === 200 ? 'ok' : String(reply.statusCode) });
    }
  });

  app.post<{ Body: DeliveryRequestBody }>(
    '/delivery/v1/in-vehicle',
    { schema: inVehicleSchema, ...guard },
    async (request, reply) => {
      const { subscription } = consumerContext(request);
      const checked = checkDeliveryRequest(request.body, subscription, ctx.catalog);
      const vins = wellFormedVins(checked);
      const vehicleLimits = await readLimit(limits, request, reply, vins);
      // Already encoded JSON (src/delivery/in-vehicle.ts); the schema above documents its shape.
      const answer = await deliverInVehicle(ctx, subscription, checked, vehicleLimits, vins);
      return reply.type('application/json; charset=utf-8').send(answer);
    },
  );

  app.get<{ Params: Pick<HistoryParams, 'vin' | 'item'>; Querystring: Omit<HistoryParams, 'vin' | 'item'> }>(
    '/delivery/v1/history/:vin/:item',
    { schema: historySchema, ...guard },
    async (request, reply) => {
      const { subscription } = consumerContext(request);
      const query = checkHistoryParams(subscription, ctx.catalog, { ...request.query, ...request.params });
      const vehicleLimits = await readLimit(limits, request, reply, [query.vin]);
      return readHistory(ctx, subscription, query, vehicleLimits);
    },
  );
}
