import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Catalog API (api-contract section 3): /catalog/v1/data-items. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
