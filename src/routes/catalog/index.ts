import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import type { RouteOptions } from '../route-options.ts';
import { parseListQuery } from './query.ts';
import { getSchema, listSchema } from './schemas.ts';

/** Catalog API (api-contract section 3): public, no key. */
export default async function catalogRoutes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { catalog } = opts.services;

  app.get<{ Querystring: { deliveryMethod?: string; updatedSince?: string } }>(
    '/catalog/v1/data-items',
    { schema: listSchema },
    async (request) => catalog.list(parseListQuery(request.query)),
  );

  app.get<{ Params: { technicalName: string } }>(
    '/catalog/v1/data-items/:technicalName',
    { schema: getSchema },
    async (request) => {
      const entry = catalog.get(request.params.technicalName);
      if (!entry) throw apiErrors.notFound(`Data item ${request.params.technicalName} not found.`);
      return entry;
    },
  );
}
