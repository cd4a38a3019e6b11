import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Admin API: erasure. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
