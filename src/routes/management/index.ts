import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { requireJsonBody } from '../../http/json-only.ts';
import { createActivationQueue } from '../../management/queue.ts';
import { QueueUnavailableError } from '../../queues/unavailable.ts';
import { vehicleCapabilities } from '../../delivery/capabilities.ts';
import { applyVehicleAction, type VehicleAction } from '../../management/vehicle-actions.ts';
import { isValidVin } from '../../domain/vin.ts';
import { createRateLimits } from '../../rate-limit/limits.ts';
import { subscriptionLimit } from '../../http/rate-limit-hook.ts';
import type { VehicleActivation } from '../../store/contract.ts';
import type { ManagementRoutesContext, RouteGroupOptions } from '../contexts.ts';
import activationCallback from './activation-callback.ts';
import { capabilitiesSchema, FIRST_PAGE_SIZE, getSchema, listSchema, MAX_VINS_PER_REQUEST, putSchema } from './schemas.ts';

const ACTIONS: readonly string[] = ['activate', 'deactivate'];

const view = (v: VehicleActivation) => ({ vin: v.vin, status: v.status, manufacturer: v.manufacturer, updatedAt: v.updatedAt });

/** Vehicle management (api-contract section 5): /management/v1/vehicles. */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<ManagementRoutesContext>): Promise<void> {
  const { ctx } = opts;
  const queue = createActivationQueue(ctx);
  app.addHook('onClose', async () => queue.close());
  const limits = createRateLimits(ctx);
  // Authentication first, before the media type and before the body is read; then the limit,
  // keyed on the authenticated subscription.
  const guard = { onRequest: [requireSubscription(ctx), requireJsonBody], preValidation: subscriptionLimit(limits) };

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
      const results = await applyVehicleAction(ctx, queue, subscription.subscriptionId, action as VehicleAction, [...new Set(vins)]);
      return reply.code(202).send(results);
    } catch (err) {
      if (!(err instanceof QueueUnavailableError)) throw err;
      // The statuses are written; only queueing failed. Repeating the request queues again.
      request.log.warn({ err: err.message }, 'activation queue unavailable');
      throw apiErrors.unavailable(5);
    }
  });

  // Pages with a cursor like the other lists. The bare call keeps its old answer, an array, for
  // its first page only: no request reads a whole fleet, and a client that follows the Link
  // header (or asks for pages) gets the rest.
  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/management/v1/vehicles', { schema: listSchema, ...guard }, async (request, reply) => {
    const { subscription } = consumerContext(request);
    const { limit, cursor } = request.query;
    const paged = limit !== undefined || cursor !== undefined;
    const size = limit === undefined ? (paged ? 100 : FIRST_PAGE_SIZE) : Number(limit);
    if (!(size >= 1 && size <= 1000)) throw apiErrors.badRequest('limit must be a whole number from 1 to 1000.');
    let page;
    try {
      page = await ctx.store.vehicles.pageBySubscription(subscription.subscriptionId, size, cursor);
    } catch (err) {
      if (err instanceof RangeError) throw apiErrors.badRequest('invalid cursor.');
      throw err;
    }
    const items = page.items.map(view);
    if (paged) return { items, nextCursor: page.nextCursor };
    if (page.nextCursor) reply.header('link', `</management/v1/vehicles?limit=${FIRST_PAGE_SIZE}&cursor=${page.nextCursor}>; rel="next"`);
    return items;
  });

  app.get<{ Params: { vin: string } }>('/management/v1/vehicles/:vin', { schema: getSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    const { vin } = request.params;
    // Another subscription's vehicle gets exactly the answer of one never activated.
    const row = isValidVin(vin) ? await ctx.store.vehicles.get(subscription.subscriptionId, vin) : null;
    if (!row) throw apiErrors.notFound('Vehicle not found in this subscription.');
    return view(row);
  });

  app.get<{ Params: { vin: string } }>('/management/v1/vehicles/:vin/capabilities', { schema: capabilitiesSchema, ...guard }, async (request) => {
    const { subscription } = consumerContext(request);
    const { vin } = request.params;
    // As GET of the vehicle: another subscription's vehicle is answered like one never activated.
    const row = isValidVin(vin) ? await ctx.store.vehicles.get(subscription.subscriptionId, vin) : null;
    if (!row) throw apiErrors.notFound('Vehicle not found in this subscription.');
    const capabilities = await vehicleCapabilities(ctx, subscription, vin, row.manufacturer);
    return { vin, manufacturer: row.manufacturer, status: row.status, dataItems: capabilities.dataItems, ...(capabilities.receivedUnknown ? { receivedUnknown: capabilities.receivedUnknown } : {}) };
  });

  await app.register(activationCallback, opts);
}
