import type { FastifyInstance } from 'fastify';
import { listErasures } from '../../gdpr/erasure-records.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';

const erasureSchema = {
  type: 'object',
  properties: {
    vin: { type: 'string' },
    scope: {
      type: 'string',
      enum: ['VEHICLE', 'SUBSCRIPTION'],
      description: "VEHICLE: all of the vehicle's data was erased; SUBSCRIPTION: only what this subscription held of it.",
    },
    erasedAt: { type: 'string', format: 'date-time' },
  },
  required: ['vin', 'scope', 'erasedAt'],
} as const;

/**
 * GET /consent/v1/erasures?vin=: the GDPR erasures of a vehicle that concerned the
 * subscription, the same facts as a `vehicle.data_erased` notice, for a consumer whose webhook
 * does not take notices or that has none (notices are opt-in).
 */
export default async function erasureApiRoutes(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  const { ctx } = opts;
  // Authentication first, before the query is validated.
  app.addHook('onRequest', requireSubscription(ctx));

  app.get<{ Querystring: { vin: string } }>(
    '/consent/v1/erasures',
    {
      schema: {
        summary: "A vehicle's data erasures that concerned the subscription, newest first",
        description:
          'An operator erased the vehicle\'s data on a GDPR request (every subscription that held it is concerned) or only this ' +
          "subscription's (its legal basis ended). Erase your copy when you find one. The service keeps no VIN for this: ask with " +
          'the VIN. Empty when no erasure concerned the subscription. See docs/webhooks.md.',
        tags: ['consent'],
        security: [{ apiKey: [], subscriptionId: [] }],
        querystring: {
          type: 'object',
          required: ['vin'],
          properties: { vin: { type: 'string', pattern: '^[A-HJ-NPR-Za-hj-npr-z0-9]{17}$', description: 'The VIN (17 characters, no I, O or Q).' } },
        },
        response: { 200: { type: 'array', items: erasureSchema }, ...errorResponses(400, 401) },
      },
    },
    async (request) => listErasures(ctx, consumerContext(request).subscription.subscriptionId, request.query.vin.toUpperCase()),
  );
}
