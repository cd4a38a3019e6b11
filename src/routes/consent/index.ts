import type { FastifyInstance } from 'fastify';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';
import confirmation from './confirmation.ts';
import consents from './consents.ts';
import erasures from './erasures.ts';
import pages from './pages.ts';

/**
 * Consent (api-contract section 4): the portal and the manufacturers' callbacks (HTML), the
 * confirmation call, the consents API and the erasures a consumer reads (JSON). Each is its own encapsulated plugin, so the
 * pages' HTML error handling and the confirmation's lenient body parsing stay local.
 */
export default async function routes(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  await app.register(pages, opts);
  await app.register(confirmation, opts);
  await app.register(consents, opts);
  await app.register(erasures, opts);
}
