import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** The virtual manufacturer's simulated OAuth 2.0 authorization server, under /oem/virtual. */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
