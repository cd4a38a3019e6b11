import type { Adapter } from '../../adapters/manifest.ts';
import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../../errors.ts';
import type { CatalogContext, RouteGroupOptions } from '../contexts.ts';
import { parseListQuery } from './query.ts';
import { getManufacturerSchema, listManufacturersSchema } from './manufacturer-schemas.ts';
import { getSchema, listSchema } from './schemas.ts';

/** Catalog API (api-contract section 3): public, no key. */
export default async function catalogRoutes(app: FastifyInstance, opts: RouteGroupOptions<CatalogContext>): Promise<void> {
  const { catalog, adapters } = opts.ctx;

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

  // The manufacturers' own words (manifests), in the catalog's terms: nothing about transports
  // or endpoints, which are the operator's business.
  const manufacturer = (a: Adapter) => ({ id: a.manifest.id, name: a.manifest.name, vinPrefixes: a.manifest.vinPrefixes, dataItems: [...a.manifest.items].sort() });

  app.get<{ Querystring: { dataItem?: string } }>('/catalog/v1/manufacturers', { schema: listManufacturersSchema }, async (request) => {
    const { dataItem } = request.query;
    if (dataItem !== undefined && !catalog.get(dataItem)) throw apiErrors.badRequest(`data item ${dataItem} is not in the catalog.`);
    return adapters
      .list()
      .filter((a) => dataItem === undefined || a.manifest.items.includes(dataItem))
      .map(manufacturer)
      .sort((a, b) => a.id.localeCompare(b.id));
  });

  app.get<{ Params: { manufacturer: string } }>('/catalog/v1/manufacturers/:manufacturer', { schema: getManufacturerSchema }, async (request) => {
    const adapter = adapters.get(request.params.manufacturer);
    if (!adapter) throw apiErrors.notFound(`Manufacturer ${request.params.manufacturer} not found.`);
    return manufacturer(adapter);
  });
}
