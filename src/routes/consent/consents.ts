import type { FastifyInstance } from 'fastify';
import { listConsents, revokeConsent } from '../../consent/consumer-api.ts';
import { apiErrors } from '../../errors.ts';
import { consumerContext, requireSubscription } from '../../http/consumer-auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';

const consentSchema = {
  type: 'object',
  properties: {
    consentId: { type: 'string' },
    subscriptionId: { type: 'string' },
    vin: { type: ['string', 'null'] },
    manufacturer: { type: ['string', 'null'] },
    state: { type: 'string' },
    active: { type: 'boolean' },
    errorCode: { type: ['string', 'null'] },
    dataItems: { type: 'array', items: { type: 'string' } },
    grantedItems: { type: ['array', 'null'], items: { type: 'string' } },
    createdAt: { type: 'string' },
    consentGivenAt: { type: ['string', 'null'] },
    activatedAt: { type: ['string', 'null'] },
    confirmedAt: { type: ['string', 'null'] },
    stateChangedAt: { type: 'string' },
    history: {
      type: 'array',
      items: { type: 'object', properties: { state: { type: 'string' }, at: { type: 'string' }, errorCode: { type: 'string' } } },
    },
  },
} as const;

const security = [{ apiKey: [], subscriptionId: [] }];

/** GET /consent/v1/consents[?vin=] and DELETE /consent/v1/consents/:consentId. */
export default async function consentApiRoutes(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  const { ctx } = opts;
  // Authentication first, before the query or parameters are validated.
  app.addHook('onRequest', requireSubscription(ctx));

  app.get<{ Querystring: { vin?: string } }>(
    '/consent/v1/consents',
    {
      schema: {
        summary: "The subscription's consent processes with their state and history, newest first",
        tags: ['consent'],
        security,
        querystring: { type: 'object', properties: { vin: { type: 'string', maxLength: 64 } } },
        response: { 200: { type: 'array', items: consentSchema } },
      },
    },
    async (request) => listConsents(ctx, consumerContext(request).subscription.subscriptionId, request.query.vin),
  );

  app.delete<{ Params: { consentId: string } }>(
    '/consent/v1/consents/:consentId',
    {
      schema: {
        summary: 'Revoke a consent: data delivery and push stop at once',
        tags: ['consent'],
        security,
        params: { type: 'object', required: ['consentId'], properties: { consentId: { type: 'string' } } },
        response: { 200: consentSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const view = await revokeConsent(ctx, consumerContext(request).subscription.subscriptionId, request.params.consentId);
      if (!view) throw apiErrors.notFound('Consent not found.');
      return view;
    },
  );
}
