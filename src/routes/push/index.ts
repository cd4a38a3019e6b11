import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Push delivery configuration and visibility (api-contract section 7): /push/v1/*. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
