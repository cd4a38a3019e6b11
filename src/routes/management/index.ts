import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { createActivationQueue } from '../../management/queue.ts';
import { QueueUnavailableError } from '../../queues/unavailable.ts';
import { vehicleCapabilities } from '../../delivery/capabilities.ts';
import { applyVehicleAction, type VehicleAction } from '../../management/vehicle-actions.ts';
import { isValidVin } from '../../management/vin.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import { subscriptionLimit } from '../../http/rate-limit-hook.ts';
import type { VehicleActivation } from '../../store/contract.ts';
import type { RouteOptions } from '../route-options.ts';
import activationCallback from './activation-callback.ts';
import { capabilitiesSchema, getSchema, listSchema, MAX_VINS_PER_REQUEST, putSchema } from './schemas.ts';

const ACTIONS: readonly string[] = ['activate', 'deactivate'];

const view = (v: VehicleActivation) => ({ vin: v.vin, status: v.status, manufacturer: v.manufacturer, updatedAt: v.updatedAt });

/** Vehicle management (api-contract section 5): /management/v1/vehicles. */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { services } = opts;
  const queue = createActivationQueue(services);
  app.addHook('onClose', async () => queue.close());
  const limits = createRateLimits(services);
  // Authentication first, before the media type and before the body is read; then the limit,
  // keyed on the authenticated subscription.
  const guard = { onRequest: [requireSubscription(services), requireJsonBody], preValidation: subscriptionLimit(limits) };

  app.put<{ Body: { action: string; vins?: string[] } }>('/management/v1/vehicles', { schema: putSchema, ...guard }, async (request, reply) => {
    const { subscription } = consumerContext(request);
    const { action, vins = [] } = request.body;
    if (!ACTIONS.includes(action)) throw apiErrors.badRequest(`unsupported action ${action}, use activate or deactivate.`);
    // The contract's texts (api-contract section 1), with this call's own limit.
    if (vins.length === 0) throw apiErrors.emptyList('Vehicles');
    if (vins.length > MAX_VINS_PER_REQUEST) throw apiErrors.tooManyVehicles(MAX_VINS_PER_REQUEST);
    const invalid = [...new Set(vins.filter((v) => !isValidVin(v)))];
    if (invalid.length > 0) throw apiErrors.badRequest(`invalid VINs ${invalid.join(',')}.`);
    try {
      const results = await applyVehicleAction(services, queue, subscription.subscriptionId, action as VehicleAction, [...new Set(vins)]);
      return reply.code(202).send(results);
    } catch (err) {
      if (!(err instanceof QueueUnavailableError)) throw err;
      // The statuses are written; only queueing failed. Repeating the request queues again.
      request.log.warn({ err: err.message }, 'activation queue unavailable');
      throw apiErrors.unavailable(5);
    }
  });

  app.get('/management/v1/vehicles', { schema: listSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    return (await services.store.vehicles.listBySubscription(subscription.subscriptionId)).map(view);
  });

  app.get<{ Params: { vin: string } }>('/management/v1/vehicles/:vin', { schema: getSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    const { vin } = request.params;
    // Another subscription's vehicle gets exactly the answer of one never activated.
    const row = isValidVin(vin) ? await services.store.vehicles.get(subscription.subscriptionId, vin) : null;
    if (!row) throw apiErrors.notFound('Vehicle not found in this subscription.');
    return view(row);
  });

  app.get<{ Params: { vin: string } }>('/management/v1/vehicles/:vin/capabilities', { schema: capabilitiesSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    const { vin } = request.params;
    // As GET of the vehicle: another subscription's vehicle is answered like one never activated.
    const row = isValidVin(vin) ? await services.store.vehicles.get(subscription.subscriptionId, vin) : null;
    if (!row) throw apiErrors.notFound('Vehicle not found in this subscription.');
    const capabilities = await vehicleCapabilities(services, subscription, vin, row.manufacturer);
    return { vin, manufacturer: row.manufacturer, status: row.status, dataItems: capabilities.dataItems, ...(capabilities.receivedUnknown ? { receivedUnknown: capabilities.receivedUnknown } : {}) };
  });

  await app.register(activationCallback, opts);
}
