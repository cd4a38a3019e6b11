import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';

/** Consent portal, manufacturer callbacks, confirmation and the consents API (api-contract section 4). */
export default async function routes(_app: FastifyInstance, _opts: RouteOptions): Promise<void> {
  // Not built yet.
}
