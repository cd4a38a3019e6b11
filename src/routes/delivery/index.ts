import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** In-vehicle delivery (api-contract section 6): /delivery/v1/in-vehicle. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
