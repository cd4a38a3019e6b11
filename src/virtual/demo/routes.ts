import type { FastifyInstance } from 'fastify';
import { pageHeaders } from '../../consent/pages/headers.ts';
import { renderMessagePage } from '../../consent/pages/message-page.ts';
import type { RouteOptions } from '../../routes/route-options.ts';

/**
 * `/demo/callback`: where the demo consumer's consent flow comes back to (the redirect URL the
 * demo seed whitelists). It plays the consumer application: it shows what arrived and the
 * confirmation call the consumer would make next. Everything shown is escaped.
 */
export default async function demoRoutes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { portalUrl } = opts.services.config;
  app.get<{ Querystring: Record<string, string | undefined> }>('/demo/callback', { schema: { hide: true } }, async (request, reply) => {
    const { code, consent_id: consentId, error, error_description: description } = request.query;
    const paragraphs = error
      ? [`The consent flow ended with error "${error}": ${description ?? ''}`, consentId ? `Consent id: ${consentId}` : 'No consent was stored.']
      : [
          `Consent ${consentId ?? '(none)'} is active: the vehicle's data can now be pulled.`,
          'The consumer application may confirm it within 10 minutes (optional, single use):',
          `curl -sS -X POST '${portalUrl}/api/consent/provisioning/confirmation/${code ?? ''}' -H 'X-API-Key: <the demo API key>'`,
        ];
    return reply
      .code(200)
      .headers(pageHeaders(null))
      .send(renderMessagePage({ title: error ? 'Consent not given' : 'Consent given (demo consumer)', paragraphs, alert: Boolean(error) }));
  });
}
