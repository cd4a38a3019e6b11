import type { FastifyInstance } from 'fastify';
import { requireJsonBody } from '../../http/json-only.ts';
import { errorResponses } from '../../http/schemas.ts';
import { addApiKey, createConsumer, getConsumer, listApiKeys, listConsumers, revokeApiKey } from '../../provisioning/index.ts';
import type { AdminContext, RouteGroupOptions } from '../contexts.ts';

const consumerSchema = {
  type: 'object',
  properties: {
    consumerId: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['consumerId', 'name', 'createdAt'],
} as const;

/** A key as listed: never the key itself, never its hash. */
const apiKeySchema = {
  type: 'object',
  properties: {
    keyId: { type: 'string', format: 'uuid' },
    displayPrefix: { type: 'string', description: 'The first characters of the key, to recognise it.' },
    createdAt: { type: 'string', format: 'date-time' },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['keyId', 'displayPrefix', 'createdAt', 'revokedAt'],
} as const;

const issuedKeyProperties = {
  consumerId: { type: 'string', format: 'uuid' },
  apiKey: { type: 'string', description: 'The API key. Shown only in this response: only its SHA-256 is stored.' },
  keyId: { type: 'string', format: 'uuid' },
  displayPrefix: { type: 'string' },
  createdAt: { type: 'string', format: 'date-time' },
} as const;

const consumerParams = {
  type: 'object',
  properties: { consumerId: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['consumerId'],
} as const;

const common = { tags: ['admin'], security: [{ adminToken: [] }] };

/** Admin API: consumers and their API keys (api-contract section 2). */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<AdminContext>): Promise<void> {
  const { ctx } = opts;
  app.addHook('onRequest', requireJsonBody);

  app.post<{ Body: { name: string } }>(
    '/consumers',
    {
      schema: {
        ...common,
        summary: 'Create a consumer and its first API key',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
          required: ['name'],
        },
        response: {
          201: { type: 'object', properties: { ...issuedKeyProperties, name: { type: 'string' } }, required: ['consumerId', 'apiKey', 'keyId'] },
          ...errorResponses(400, 401, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const created = await createConsumer(ctx, request.body.name);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/consumers',
    { schema: { ...common, summary: 'List consumers', response: { 200: { type: 'array', items: consumerSchema }, ...errorResponses(401) } } },
    async () => listConsumers(ctx),
  );

  app.get<{ Params: { consumerId: string } }>(
    '/consumers/:consumerId',
    {
      schema: { ...common, summary: 'Get a consumer', params: consumerParams, response: { 200: consumerSchema, ...errorResponses(400, 401, 404) } },
    },
    async (request) => getConsumer(ctx, request.params.consumerId),
  );

  app.post<{ Params: { consumerId: string } }>(
    '/consumers/:consumerId/api-keys',
    {
      schema: {
        ...common,
        summary: 'Create a further API key (rotation: older keys keep working until revoked)',
        params: consumerParams,
        response: {
          201: { type: 'object', properties: issuedKeyProperties, required: ['consumerId', 'apiKey', 'keyId'] },
          ...errorResponses(400, 401, 404, 415),
        },
      },
    },
    async (request, reply) => {
      const issued = await addApiKey(ctx, request.params.consumerId);
      return reply.code(201).header('cache-control', 'no-store').send(issued);
    },
  );

  app.get<{ Params: { consumerId: string } }>(
    '/consumers/:consumerId/api-keys',
    {
      schema: {
        ...common,
        summary: "List a consumer's API keys (never the keys themselves)",
        params: consumerParams,
        response: { 200: { type: 'array', items: apiKeySchema }, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listApiKeys(ctx, request.params.consumerId),
  );

  app.delete<{ Params: { consumerId: string; keyId: string } }>(
    '/consumers/:consumerId/api-keys/:keyId',
    {
      schema: {
        ...common,
        summary: 'Revoke an API key (at once; revoking again changes nothing)',
        params: {
          type: 'object',
          properties: { ...consumerParams.properties, keyId: { type: 'string', minLength: 1, maxLength: 64 } },
          required: ['consumerId', 'keyId'],
        },
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(ctx, request.params.consumerId, request.params.keyId);
      return reply.code(204).send();
    },
  );
}
