import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Vehicle management (api-contract section 5): /management/v1/vehicles. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
