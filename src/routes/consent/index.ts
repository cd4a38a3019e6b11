import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../route-options.ts';
import confirmation from './confirmation.ts';
import consents from './consents.ts';
import pages from './pages.ts';

/**
 * Consent (api-contract section 4): the portal and the manufacturers' callbacks (HTML), the
 * confirmation call and the consents API (JSON). Each is its own encapsulated plugin, so the
 * pages' HTML error handling and the confirmation's lenient body parsing stay local.
 */
export default async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  await app.register(pages, opts);
  await app.register(confirmation, opts);
  await app.register(consents, opts);
}
