import type { FastifyInstance } from 'fastify';
import { readHistory, type HistoryParams } from '../../delivery/history.ts';
import { deliverInVehicle } from '../../delivery/in-vehicle.ts';
import { checkDeliveryRequest, type DeliveryRequestBody } from '../../delivery/request.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import type { RouteOptions } from '../route-options.ts';
import { historySchema, inVehicleSchema } from './schemas.ts';

/**
 * In-vehicle delivery (api-contract section 6): POST /delivery/v1/in-vehicle, and the history
 * of one item of one vehicle (docs/history.md): GET /delivery/v1/history/{vin}/{item}.
 */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  const limits = createRateLimits(services);
  // Authentication before body checks, and the limit keyed on the authenticated subscription.
  const guard = { preValidation: [requireSubscription(services), limits.subscriptionHook] };

  app.post<{ Body: DeliveryRequestBody }>('/delivery/v1/in-vehicle', { schema: inVehicleSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    const checked = checkDeliveryRequest(request.body, subscription, services.catalog);
    return deliverInVehicle(services, limits, subscription, checked);
  });

  app.get<{ Params: Pick<HistoryParams, 'vin' | 'item'>; Querystring: Omit<HistoryParams, 'vin' | 'item'> }>(
    '/delivery/v1/history/:vin/:item',
    { schema: historySchema, ...guard },
    async (request) => {
      const { subscription } = consumerContext(request);
      return readHistory(services, limits, subscription, { ...request.query, ...request.params });
    },
  );
}
