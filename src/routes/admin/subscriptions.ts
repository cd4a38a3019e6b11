import type { FastifyInstance } from 'fastify';
import { requireJsonBody } from '../../http/json-only.ts';
import { errorResponses } from '../../http/schemas.ts';
import { createSubscription, getSubscription, listSubscriptions, type CreateSubscriptionInput } from '../../provisioning/index.ts';
import { MAX_REDIRECT_URLS } from '../../provisioning/redirect-urls.ts';
import { LEGAL_BASES } from '../../store/contract.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';

const subscriptionSchema = {
  type: 'object',
  properties: {
    subscriptionId: { type: 'string', format: 'uuid' },
    consumerId: { type: 'string', format: 'uuid' },
    dataItems: { type: 'array', items: { type: 'string' } },
    allowedRedirectUrls: { type: 'array', items: { type: 'string' } },
    legalBasis: { type: 'string', enum: [...LEGAL_BASES] },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['subscriptionId', 'consumerId', 'dataItems', 'allowedRedirectUrls', 'legalBasis', 'createdAt'],
} as const;

const common = { tags: ['admin'], security: [{ adminToken: [] }] };

/** Admin API: subscriptions (api-contract section 2). */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;
  app.addHook('onRequest', requireJsonBody);

  app.post<{ Body: CreateSubscriptionInput }>(
    '/subscriptions',
    {
      schema: {
        ...common,
        summary: 'Create a subscription of a consumer',
        description:
          'Unknown data items are a 400 naming them. Redirect URLs must be absolute https URLs without a fragment ' +
          '(plain http only on localhost, 127.0.0.1 and [::1]); the consent portal compares them character for character.',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            consumerId: { type: 'string', minLength: 1, maxLength: 64 },
            dataItems: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 200 } },
            allowedRedirectUrls: { type: 'array', maxItems: MAX_REDIRECT_URLS, items: { type: 'string', maxLength: 2048 } },
            legalBasis: { type: 'string', enum: [...LEGAL_BASES], default: 'CONSENT' },
          },
          required: ['consumerId', 'dataItems'],
        },
        response: { 201: subscriptionSchema, ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await createSubscription(ctx, request.body)),
  );

  app.get<{ Querystring: { consumerId?: string } }>(
    '/subscriptions',
    {
      schema: {
        ...common,
        summary: 'List subscriptions',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { consumerId: { type: 'string', minLength: 1, maxLength: 64 } },
        },
        response: { 200: { type: 'array', items: subscriptionSchema }, ...errorResponses(400, 401) },
      },
    },
    async (request) => listSubscriptions(ctx, request.query),
  );

  app.get<{ Params: { subscriptionId: string } }>(
    '/subscriptions/:subscriptionId',
    {
      schema: {
        ...common,
        summary: 'Get a subscription',
        params: {
          type: 'object',
          properties: { subscriptionId: { type: 'string', minLength: 1, maxLength: 64 } },
          required: ['subscriptionId'],
        },
        response: { 200: subscriptionSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => getSubscription(ctx, request.params.subscriptionId),
  );
}
